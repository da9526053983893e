// Reading series off a waitgate process's /metrics text, as Prometheus would scrape it: one
// home for the parsing that the benchmark, the fuzz run and the tests each need.

/** The value of one series (`name` or `name{label="v",...}` exactly as exposed) in a scrape, or undefined when it is not there. */
export function seriesIn(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** The /metrics text of the process serving `metricsUrl` (`http://host:port`, no path). */
export async function scrape(metricsUrl: string): Promise<string> {
  return (await fetch(`${metricsUrl}/metrics`)).text();
}

// Reading one series off a waitgate process's /metrics, as Prometheus would scrape it.
import { scrape, seriesIn } from '../../bench/metrics-text.js';

/**
 * The value of one series (`name` or `name{label="v",...}` exactly as exposed), or 0 when the
 * process has not exposed it yet (a counter not yet incremented).
 */
export async function metricValue(metricsUrl: string, series: string): Promise<number> {
  return seriesIn(await scrape(metricsUrl), series) ?? 0;
}

/** The operator's metrics URL, from its "Started" log line. */
export function operatorMetricsUrl(startedLine: Record<string, unknown> | undefined): string {
  const port = startedLine?.['metricsPort'];
  if (typeof port !== 'number') throw new Error('the operator has not logged its metrics port');
  return `http://127.0.0.1:${String(port)}`;
}

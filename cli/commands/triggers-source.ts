// `waitgate triggers check` reads either the triggers file itself or a ConfigMap manifest
// (YAML or JSON, possibly among other resources) that carries it under data["triggers.json"].
import { parseAllDocuments } from 'yaml';
import { TRIGGERS_KEY } from '../../api/triggers/triggers-file.js';

export { TRIGGERS_KEY };

export type TriggersSource =
  | { readonly ok: true; readonly text: string; readonly from?: string; readonly note?: string }
  | { readonly ok: false; readonly problem: string };

export function triggersSource(text: string, fileName: string): TriggersSource {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let json: { value: unknown } | undefined;
  try {
    json = { value: JSON.parse(body) };
  } catch {
    json = undefined;
  }
  if (json !== undefined) {
    // A JSON array is the triggers file itself; anything else that is no manifest is left
    // to the triggers check to refuse.
    return Array.isArray(json.value) ? { ok: true, text } : (fromManifests([json.value], fileName) ?? { ok: true, text });
  }
  const yaml = parseYaml(body);
  if (!yaml.ok) {
    // Not JSON and not YAML: as YAML it is broken; as a triggers file it is not JSON.
    return /\.ya?ml$/i.test(fileName) ? { ok: false, problem: `${fileName} is not valid YAML: ${yaml.problem}` } : { ok: true, text };
  }
  return (
    fromManifests(yaml.values, fileName) ?? {
      ok: true,
      text,
      note: `${fileName} reads as YAML; a triggers file is JSON, and YAML is read here only as a ConfigMap manifest holding ${TRIGGERS_KEY}`,
    }
  );
}

function parseYaml(text: string): { ok: true; values: unknown[] } | { ok: false; problem: string } {
  try {
    const docs = parseAllDocuments(text);
    const list = Array.isArray(docs) ? docs : [];
    for (const doc of list) {
      const error = doc.errors[0];
      if (error) return { ok: false, problem: error.message.split('\n')[0] ?? 'unreadable' };
    }
    return { ok: true, values: list.map((doc) => doc.toJS() as unknown) };
  } catch (err) {
    return { ok: false, problem: err instanceof Error ? err.message : String(err) };
  }
}

interface ConfigMap {
  readonly name: string;
  readonly data: Record<string, unknown>;
}

/** The source among the manifests, a problem with them, or undefined when there is no ConfigMap at all. */
function fromManifests(values: readonly unknown[], fileName: string): TriggersSource | undefined {
  const configMaps = values.flatMap(configMapsIn);
  if (configMaps.length === 0) return undefined;
  const carrying = configMaps.filter((cm) => Object.hasOwn(cm.data, TRIGGERS_KEY));
  if (carrying.length === 0) {
    const names = configMaps.map((cm) => cm.name).join(', ');
    return { ok: false, problem: `${fileName}: no ConfigMap in it (${names}) has a data key ${TRIGGERS_KEY}` };
  }
  if (carrying.length > 1) {
    const names = carrying.map((cm) => cm.name).join(', ');
    return {
      ok: false,
      problem: `${fileName} holds ${carrying.length} ConfigMaps with a ${TRIGGERS_KEY} key (${names}); check them one at a time`,
    };
  }
  const cm = carrying[0] as ConfigMap;
  const value = cm.data[TRIGGERS_KEY];
  if (typeof value !== 'string') {
    return {
      ok: false,
      problem: `${fileName}: data["${TRIGGERS_KEY}"] of ConfigMap ${cm.name} must be text holding the JSON (in YAML, a block such as \`${TRIGGERS_KEY}: |\`), not parsed structure`,
    };
  }
  return { ok: true, text: value, from: `ConfigMap ${cm.name}, key ${TRIGGERS_KEY}` };
}

function configMapsIn(value: unknown): ConfigMap[] {
  if (!isRecord(value)) return [];
  if (value.kind === 'List' && Array.isArray(value.items)) return value.items.flatMap(configMapsIn);
  if (value.kind !== 'ConfigMap') return [];
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '(unnamed)';
  const namespace = typeof metadata.namespace === 'string' ? `${metadata.namespace}/` : '';
  return [{ name: `${namespace}${name}`, data: isRecord(value.data) ? value.data : {} }];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

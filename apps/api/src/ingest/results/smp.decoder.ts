// Service Mesh Performance (SMP) results, YAML or JSON: the spec's result document
// (latencies already in milliseconds) and Meshery's result records, whose
// runner_results hold Fortio results.
// Follows service-mesh-performance/service-mesh-performance at 6ecbce7985dddb5577509f25a1ab
// 67959da8ca68: the spec's example result ("docs/assets/spec/readme/service mesh performance
// result.yaml": start/end_time, exp_uuid, endpoint_url, env, client {connections, rps,
// latencies_ms {min, average, p50, p90, p99, max}}) and the site's Meshery sample
// (docs/_data/test-results.json: records with runner_results of Fortio results, read by the
// Fortio decoder, see its header).
import type { LoadResult } from '@meshbench/schema';
import { fortioToResult } from './fortio.decoder.ts';
import { ResultFileError } from './result-file-error.ts';
import {
  emptyResult,
  isRecord,
  type Json,
  rfc3339,
  spanMs,
  toCount,
  toNonNegative,
  Unmapped,
} from './values.ts';

/** Meshery's result records: an array of them, or one. */
export function isMesheryResults(doc: unknown): boolean {
  const isRecordWithRuns = (x: unknown) => isRecord(x) && Array.isArray(x.runner_results);
  return Array.isArray(doc) ? doc.length > 0 && doc.every(isRecordWithRuns) : isRecordWithRuns(doc);
}

/** The SMP result document: latencies_ms at the top (the spec's proto) or under client. */
export function isSmpResult(doc: unknown): boolean {
  if (!isRecord(doc)) return false;
  if (isRecord(doc.latencies_ms)) return true;
  return isRecord(doc.client) && isRecord(doc.client.latencies_ms);
}

export function decodeSmp(doc: unknown): { results: LoadResult[]; unmapped: string[] } {
  if (isMesheryResults(doc))
    return decodeMeshery(Array.isArray(doc) ? doc : [doc], Array.isArray(doc));
  if (isSmpResult(doc)) return decodeSmpResult(doc as Json);
  throw new ResultFileError(
    'format_mismatch',
    'not an SMP result: expected a document with latencies_ms (or client.latencies_ms), or Meshery results with runner_results',
  );
}

const MESHERY_LABELS: Record<string, string> = {
  name: 'name',
  mesh: 'mesh',
  meshery_id: 'mesheryId',
  performance_profile: 'performanceProfile',
  test_id: 'testId',
};

function decodeMeshery(
  items: Json[],
  inArray: boolean,
): { results: LoadResult[]; unmapped: string[] } {
  const unmapped = new Unmapped();
  const results: LoadResult[] = [];
  items.forEach((item, i) => {
    const runs = item.runner_results as unknown[];
    runs.forEach((run, j) => {
      if (!isRecord(run)) return;
      const at = `${inArray ? `[${i}].` : ''}runner_results[${j}].`;
      const { kubernetes, 'load-generator': generator, ...fortio } = run;
      const r = fortioToResult(fortio, { at, name: 'runner_results[].', unmapped });
      for (const [key, label] of Object.entries(MESHERY_LABELS)) {
        const v = item[key];
        if (typeof v === 'string' && v !== '') r.labels[label] = v;
      }
      if (typeof generator === 'string' && generator !== '') r.labels.loadGenerator = generator;
      if (isRecord(kubernetes)) {
        const v = kubernetes.server_version;
        if (typeof v === 'string' && v !== '') r.labels.kubernetesVersion = v;
        unmapped.rest(kubernetes, ['server_version'], 'runner_results[].kubernetes.');
      }
      results.push(r);
    });
    unmapped.rest(item, ['runner_results', ...Object.keys(MESHERY_LABELS)]);
  });
  return { results, unmapped: unmapped.list() };
}

const LABEL_FIELDS: Record<string, string> = {
  id: 'id',
  exp_uuid: 'expUuid',
  testId: 'testId',
  test_id: 'testId',
  meshConfigId: 'meshConfigId',
  envId: 'envId',
  smp_version: 'smpVersion',
  smps_version: 'smpVersion',
  details_uri: 'detailsUri',
  endpoint_url: 'url',
};

function decodeSmpResult(doc: Json): { results: LoadResult[]; unmapped: string[] } {
  const unmapped = new Unmapped();
  const r = emptyResult();
  const used = ['start_time', 'end_time', 'labels', 'env', 'client', 'latencies_ms', 'actual_QPS'];

  for (const [key, label] of Object.entries(LABEL_FIELDS)) {
    const v = doc[key];
    if (typeof v === 'string' && v !== '') r.labels[label] = v;
    used.push(key);
  }
  if (isRecord(doc.labels)) {
    for (const [k, v] of Object.entries(doc.labels)) {
      if (typeof v === 'string' || typeof v === 'number') r.labels[k] = String(v);
    }
  }
  if (isRecord(doc.env)) {
    for (const [k, v] of Object.entries(doc.env)) {
      if (typeof v === 'string' || typeof v === 'number') r.labels[`env.${k}`] = String(v);
      else if (v !== null) unmapped.add(`env.${k}`);
    }
  }

  const start = rfc3339(doc.start_time, 'start_time');
  const end = rfc3339(doc.end_time, 'end_time');
  r.startedAt = start;
  if (doc.start_time !== undefined && start === null) unmapped.add('start_time');
  if (start !== null && end !== null) r.durationMs = spanMs(start, end);
  else if (doc.end_time !== undefined) unmapped.add('end_time');

  const client = isRecord(doc.client) ? doc.client : null;
  if (client) {
    const at = (k: string) => ({ field: `client.${k}` });
    r.connections = toCount(client.connections, at('connections'));
    // In a result document client.rps is what the client achieved (fractional: the
    // example's 0.9999971285438009); the requested rate lives in the test config.
    r.achievedRps = toNonNegative(client.rps, at('rps'));
    if (typeof client.load_generator === 'string') r.labels.loadGenerator = client.load_generator;
    if (typeof client.protocol === 'string') r.labels.protocol = client.protocol;
    if (isRecord(client.latencies_ms))
      readLatencies(client.latencies_ms, 'client.latencies_ms', r, unmapped);
    unmapped.rest(
      client,
      ['connections', 'rps', 'load_generator', 'protocol', 'latencies_ms'],
      'client.',
    );
  }
  if (isRecord(doc.latencies_ms)) readLatencies(doc.latencies_ms, 'latencies_ms', r, unmapped);
  const qps = toNonNegative(doc.actual_QPS, { field: 'actual_QPS' });
  if (qps !== null) r.achievedRps = qps;

  unmapped.rest(doc, used);
  return { results: [r], unmapped: unmapped.list() };
}

function readLatencies(l: Json, at: string, r: LoadResult, unmapped: Unmapped): void {
  const ms = (k: string) => toNonNegative(l[k], { field: `${at}.${k}` });
  r.minMs = ms('min');
  r.meanMs = ms('average');
  r.maxMs = ms('max');
  const ps: LoadResult['percentiles'] = [];
  for (const [k, v] of Object.entries(l)) {
    const m = /^p(\d+(?:\.\d+)?)$/.exec(k);
    if (m) {
      const value = toNonNegative(v, { field: `${at}.${k}` });
      if (value !== null) ps.push({ p: Number(m[1]), ms: value });
    } else if (!['min', 'average', 'max'].includes(k) && v !== null) {
      unmapped.add(`${at}.${k}`);
    }
  }
  r.percentiles = ps.sort((a, b) => a.p - b.p);
}

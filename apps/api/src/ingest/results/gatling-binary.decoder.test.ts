import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sniff } from './detect.ts';
import { readGatlingBinary } from './gatling-binary.decoder.ts';
import { encodeGatlingLog } from './gatling-binary.encode.ts';
import { expectRecomputed, gatlingRun, requestsOf } from './gatling-binary.test-fixtures.ts';
import type { GatlingRecord } from './gatling-binary.ts';
import { decodeResults } from './index.ts';
import type { ResultFileError } from './result-file-error.ts';
import { decodeSampleChunks } from './sample-formats.ts';

// gatling/gatling's own binary test file (fixtures/public/gatling/PROVENANCE.md).
const upstream = readFileSync(
  new URL(
    '../../../../../fixtures/public/gatling/known_stats-binary-simulation.log',
    import.meta.url,
  ),
);

const limits = { maxLineBytes: 1 << 16, lineSetting: 'MESHBENCH_MAX_RESULT_BYTES' };

async function* chunked(bytes: Uint8Array, size: number) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const decode = (bytes: Uint8Array, size = 65536) =>
  decodeSampleChunks('gatling', chunked(bytes, size), limits);

async function records(bytes: Uint8Array, size = 65536): Promise<GatlingRecord[]> {
  const out: GatlingRecord[] = [];
  await readGatlingBinary(chunked(bytes, size), limits, (r) => out.push(r));
  return out;
}

const refused = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('not refused');
    },
    (e) => e as ResultFileError,
  );

describe("Gatling's binary simulation.log (3.13 on)", () => {
  it("reads gatling/gatling's own file, whose records written again are its bytes", async () => {
    const read = await records(upstream);
    expect(read[0]).toEqual({
      kind: 'run',
      version: '3.12.1',
      simulation: 'computerdatabase.ComputerDatabaseSimulation',
      start: 1_730_757_531_501,
      description: '',
      scenarios: ['Users', 'Admins'],
      assertions: [],
    });
    expect(read.filter((r) => r.kind === 'request')).toHaveLength(105);
    expect(read.filter((r) => r.kind === 'user')).toHaveLength(24);
    // The port of LogFileDataWriter gives the very bytes Gatling wrote: cached strings,
    // coders, offsets and all.
    expect(encodeGatlingLog(read).equals(upstream)).toBe(true);
    // A byte at a time: the same records.
    expect(await records(upstream, 1)).toEqual(read);
  });

  it("gives what gatling/gatling's LogFileReaderSpec says of that file, at the nearest rank", async () => {
    const [point] = (await decode(upstream)).results;
    // LogFileReaderSpec: min 87, max 368, 104 OK + 1 KO, P0 87, P70 113, P99 and P100 368.
    expect(point).toMatchObject({
      requests: 105,
      errors: 1,
      errorsByCode: { 'status.find.is(201), but actually found 200': 1 },
      minMs: 87,
      maxMs: 368,
      labels: {
        tool: 'gatling',
        simulation: 'computerdatabase.ComputerDatabaseSimulation',
        gatlingVersion: '3.12.1',
      },
    });
    const at = (p: number) => point?.percentiles.find((q) => q.p === p);
    expect(at(99)).toEqual({ p: 99, ms: 368, exact: false, method: 'raw', lower: 367, upper: 369 });
    expect(at(100)?.ms).toBe(368);
    expectRecomputed(point, requestsOf(await records(upstream)));
  });

  it('is told by its opening, and read when posted whole or named', async () => {
    expect(sniff(upstream.toString('latin1'))).toBe('gatling');
    expect(sniff(upstream.toString('utf8'))).toBe('gatling');
    // As text the bytes are lost: such a file is read from its bytes (the upload path).
    await expect(decodeResults(upstream.toString('latin1'))).rejects.toMatchObject({
      message: expect.stringMatching(
        /binary simulation\.log \(Gatling 3\.13 or later\), read from its bytes/,
      ),
    });
  });

  it('stores raw samples: each percentile the nearest rank of end - start, +-1 ms', async () => {
    const run = gatlingRun(5000);
    const bytes = encodeGatlingLog(run);
    const decoded = await decode(bytes);
    const [point] = decoded.results;
    expectRecomputed(point, requestsOf(run));
    expect(point?.labels).toEqual({
      tool: 'gatling',
      simulation: 'mesh.Istio500kSimulation',
      gatlingVersion: '3.14.3',
    });
    // Messages as Gatling's reader shows them: \t and \n as spaces.
    expect(point?.errorsByCode).toEqual({
      'status.find.is(200), but actually found 503': requestsOf(run).filter(
        (r) => !r.ok && r.name === 'Home',
      ).length,
      'j.n.ConnectException: Connection refused': requestsOf(run).filter(
        (r) => !r.ok && r.name !== 'Home',
      ).length,
    });
    expect(decoded.unmapped).toEqual(['groups', 'USER', 'GROUP', 'ERROR', 'assertions']);
    // Cut anywhere, fed in any pieces: the same result.
    for (const size of [1, 7, 4096]) expect(await decode(bytes, size)).toEqual(decoded);
    // The UTF16 name is read as written.
    expect(
      (await records(bytes)).some((r) => r.kind === 'request' && r.name === '検索 search'),
    ).toBe(true);
  });

  it('refuses a cut file, a wrong record and a string never sent, naming where', async () => {
    const bytes = encodeGatlingLog(gatlingRun(50));
    expect(await refused(decode(bytes.subarray(0, bytes.length - 2)))).toMatchObject({
      problem: 'truncated',
      message: expect.stringMatching(
        /^the file ends inside record \d+ \(after \d+ whole records, byte \d+\)$/,
      ),
    });
    // The first REQUEST's header (after the RUN record and the first USER one) made 9.
    const run = encodeGatlingLog(gatlingRun(50).slice(0, 2));
    const bad = Buffer.from(bytes);
    expect(bad[run.length]).toBe(1);
    bad[run.length] = 9;
    expect(await refused(decode(bad))).toMatchObject({
      problem: 'invalid_value',
      message: `not Gatling's binary simulation.log (3.13 or later): record 3 (byte ${run.length + 1}): header 9 is no Gatling record (0 RUN, 1 REQUEST, 2 USER, 3 GROUP, 4 ERROR)`,
    });
    // A REQUEST naming cached string 7 before any was sent.
    const orphan = Buffer.concat([
      run,
      Buffer.from([1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xf9, 0, 0, 0, 1, 0, 0, 0, 2, 1, 0, 0, 0, 0]),
    ]);
    expect((await refused(decode(orphan))).message).toMatch(
      /record 3 \(byte \d+\): cached string 7, which the file never sent$/,
    );
    // A string longer than a record may be.
    const long = encodeGatlingLog([
      ...gatlingRun(1).slice(0, 1),
      { kind: 'error', message: 'x'.repeat(70_000), timestamp: 1_767_225_600_001 },
    ]);
    expect(await refused(decode(long))).toMatchObject({
      problem: 'too_large',
      message: expect.stringMatching(
        /^record 2 \(byte \d+\) is longer than 65536 bytes, the limit of a record set by MESHBENCH_MAX_RESULT_BYTES$/,
      ),
    });
  });
});

// Test-only: Gatling's binary simulation.log written as Gatling 3.13 on writes it, a port of
// gatling/gatling 8bb193bdf5d0f54cf803dcbc3c6846306c38c202 gatling-core
// .../stats/writer/LogFileDataWriter.scala (BufferedFileChannelWriter: big-endian ByteBuffer,
// writeString as the int length of Java's String value, the value and its coder, "" as a lone
// int 0; writeCachedString: a fresh string as its index from 1 up then the string, a string
// sent before as -index; the RUN, USER, REQUEST, GROUP and ERROR serializers, times as int ms
// after the RUN start) and StringInternals.java (a String's value: LATIN1 bytes when every char
// fits in one, else UTF16 in the JVM's byte order, little-endian here). No Gatling runs here
// (it is not packaged by Debian): this port makes the test files beside gatling/gatling's own,
// and its bytes equal that file's (gatling-binary.decoder.test.ts).
import type { GatlingRecord } from './gatling-binary.ts';

export class GatlingLogWriter {
  private readonly parts: Buffer[] = [];
  private readonly cache = new Map<string, number>();
  private next = 1;
  private runStart = 0;

  private byte(v: number): void {
    this.parts.push(Buffer.from([v]));
  }

  private int(v: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    this.parts.push(b);
  }

  private long(v: number): void {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(BigInt(v));
    this.parts.push(b);
  }

  private string(s: string): void {
    if (s === '') {
      this.int(0);
      return;
    }
    const latin1 = [...s].every((c) => c.length === 1 && c.charCodeAt(0) <= 0xff);
    const value = Buffer.from(s, latin1 ? 'latin1' : 'utf16le');
    this.int(value.length);
    this.parts.push(value);
    this.byte(latin1 ? 0 : 1);
  }

  private cached(s: string): void {
    const index = this.cache.get(s);
    if (index === undefined) {
      this.int(this.next);
      this.string(s);
      this.cache.set(s, this.next);
      this.next++;
    } else {
      this.int(-index);
    }
  }

  private groups(groups: string[]): void {
    this.int(groups.length);
    for (const g of groups) this.cached(g);
  }

  /** One record; times (but the RUN's start) are epoch ms, written as ms after the RUN start. */
  write(r: GatlingRecord): this {
    switch (r.kind) {
      case 'run':
        this.byte(0);
        this.string(r.version);
        this.string(r.simulation);
        this.long(r.start);
        this.string(r.description);
        this.int(r.scenarios.length);
        for (const s of r.scenarios) this.string(s);
        this.int(r.assertions.length);
        for (const a of r.assertions) {
          this.int(a.length);
          this.parts.push(Buffer.from(a));
        }
        this.runStart = r.start;
        break;
      case 'user':
        this.byte(2);
        this.int(r.scenario);
        this.byte(r.start ? 1 : 0);
        this.int(r.timestamp - this.runStart);
        break;
      case 'request':
        this.byte(1);
        this.groups(r.groups);
        this.cached(r.name);
        this.int(r.start - this.runStart);
        this.int(r.end - this.runStart);
        this.byte(r.ok ? 1 : 0);
        this.cached(r.message);
        break;
      case 'group':
        this.byte(3);
        this.groups(r.groups);
        this.int(r.start - this.runStart);
        this.int(r.end - this.runStart);
        this.int(r.cumulatedResponseTime);
        this.byte(r.ok ? 1 : 0);
        break;
      case 'error':
        this.byte(4);
        this.cached(r.message);
        this.int(r.timestamp - this.runStart);
        break;
    }
    return this;
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }

  /** The bytes written since the last take, so a long file can be written in pieces. */
  take(): Buffer {
    const out = Buffer.concat(this.parts);
    this.parts.length = 0;
    return out;
  }
}

/** Records as Gatling 3.13 on writes them. */
export const encodeGatlingLog = (records: GatlingRecord[]): Buffer => {
  const w = new GatlingLogWriter();
  for (const r of records) w.write(r);
  return w.bytes();
};

// Gatling's binary simulation.log (3.13 on, gatling/gatling efd3ec7ce): told by its opening so
// that it is refused by name, never read (see gatling.decoder.ts).

/**
 * A binary simulation.log of Gatling 3.13 on: RUN header byte 0, then the version as an int
 * length and its bytes (LogFileDataWriter RunMessageSerializer).
 */
export function isGatlingBinaryLog(head: string): boolean {
  const at = (i: number) => head.charCodeAt(i);
  return (
    head.length > 6 &&
    at(0) === 0 &&
    at(1) === 0 &&
    at(2) === 0 &&
    at(3) === 0 &&
    at(4) > 0 &&
    at(4) < 64 &&
    /^\d+\./.test(head.slice(5, 12))
  );
}

/** Why bytes that are not UTF-8 are refused, when they open as Gatling's binary log. */
export const GATLING_BINARY =
  "a binary simulation.log (Gatling 3.13 or later): only Gatling's text simulation.log (up to 3.12) is read";

/** GATLING_BINARY's words when the bytes open as a binary simulation.log, else ''. */
export function gatlingBinaryHint(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.subarray(0, 12)).toString('latin1');
  return isGatlingBinaryLog(head) ? `; it is ${GATLING_BINARY}` : '';
}

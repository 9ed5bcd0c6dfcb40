// Sorted times kept as one bytea, in the form Postgres' float8send() writes (a migration
// builds the same bytes with string_agg(float8send(...))).

/** float8send()'s form: big-endian float8 values one after another. */
export function toFloat8Send(values: Float64Array): Buffer {
  const out = Buffer.allocUnsafe(values.length * 8);
  for (let i = 0; i < values.length; i++) out.writeDoubleBE(values[i] as number, i * 8);
  return out;
}

export function fromFloat8Send(bytes: Uint8Array): Float64Array {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float64Array(b.length / 8);
  for (let i = 0; i < out.length; i++) out[i] = b.readDoubleBE(i * 8);
  return out;
}

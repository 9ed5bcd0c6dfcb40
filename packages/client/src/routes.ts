// Calls and links derived from the route contracts of @meshbench/schema: the path, its
// params, the query, the body and the answer's schema all come from the contract, so a
// path, a param or a body the API does not take is a type error, not a 404 at run time.
import {
  contracts,
  type OkSchema,
  openApiPath,
  type ParamsOf,
  pathWith,
  type RouteContract,
} from '@meshbench/schema';
import type { z } from 'zod';
import { InvalidResponseError } from './errors.ts';
import type { SendInit, Transport } from './transport.ts';

export type QueryValue = string | number | boolean | readonly string[] | undefined;
/** A route's query: the keys its schema takes, as they go on the wire. */
export type QueryOf<S extends z.ZodType> = { [K in keyof z.input<S>]?: QueryValue };

/** `?a=1&b=2`: keys in the order given, unset and empty values left out, arrays repeated. */
export function queryString(params: Record<string, QueryValue> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === '') continue;
    if (Array.isArray(v)) for (const item of v) q.append(k, item);
    else q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Per call: an abort signal, and a token that replaces the transport's. */
export interface CallOptions {
  signal?: AbortSignal | undefined;
  token?: string | undefined;
}

/** A body posted as it is (a file, a gzipped batch): the answer is still parsed. */
export interface RawBody {
  body: string | Uint8Array<ArrayBuffer> | Blob;
  contentType?: string;
  /** e.g. gzip, when the body is compressed. */
  contentEncoding?: string;
}

type ParamsArg<C extends RouteContract> = [keyof ParamsOf<C>] extends [never]
  ? { params?: undefined }
  : { params: ParamsOf<C> };
type QueryArg<C extends RouteContract> = C extends { query: infer Q extends z.ZodType }
  ? { query?: QueryOf<Q> | undefined }
  : { query?: undefined };
type BodyArg<C extends RouteContract> = C extends { body: infer B extends z.ZodType }
  ? { body: z.input<B> }
  : C extends { bodyBytes: true }
    ? { body: RawBody }
    : { body?: undefined };

/** What a call to the route takes: its path params, query and body, each as its contract says. */
export type RouteArgs<C extends RouteContract> = ParamsArg<C> &
  QueryArg<C> &
  BodyArg<C> & { headers?: Record<string, string>; idempotent?: boolean };

/** The parsed answer of a route that succeeds. */
export type RouteAnswer<C extends RouteContract> = [OkSchema<C>] extends [never]
  ? unknown
  : OkSchema<C> extends z.ZodType
    ? z.output<OkSchema<C>>
    : unknown;

/** Every contract, flat: `GET /runs/:id` and the like, as the API mounts them under API_BASE. */
type Groups = typeof contracts;
type AnyRoute = { [G in keyof Groups]: Groups[G][keyof Groups[G]] }[keyof Groups];
export type RouteKey = AnyRoute extends infer C
  ? C extends RouteContract
    ? `${C['method']} ${C['path']}`
    : never
  : never;
export type RouteAt<K extends RouteKey> = Extract<
  AnyRoute,
  {
    method: K extends `${infer M} ${string}` ? M : never;
    path: K extends `${string} ${infer P}` ? P : never;
  }
>;

const byKey = new Map<string, RouteContract>(
  Object.values(contracts).flatMap((group) =>
    Object.values(group as Record<string, RouteContract>).map((c) => [`${c.method} ${c.path}`, c]),
  ),
);

/** The contract of `GET /runs/:id` and the like. */
export function routeAt<K extends RouteKey>(key: K): RouteAt<K> {
  const found = byKey.get(key);
  if (!found) throw new Error(`no route ${key}`);
  return found as RouteAt<K>;
}

type LinkArgs<C extends RouteContract> = ParamsArg<C> & QueryArg<C>;

/** The args, left out altogether when a route has no path params. */
export type ArgsTuple<C extends RouteContract, A> = [keyof ParamsOf<C>] extends [never]
  ? [args?: A]
  : [args: A];

/** A route's path under API_BASE with its params and query put in: for calls and for links. */
export function pathTo<C extends RouteContract>(
  contract: C,
  ...[args]: ArgsTuple<C, LinkArgs<C>>
): string {
  return fill(contract, (args ?? {}) as Loose);
}

interface Loose {
  params?: Record<string, string>;
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
  idempotent?: boolean;
}

const fill = (contract: RouteContract, a: Loose) =>
  `${pathWith(contract.path, a.params)}${queryString(a.query)}`;

/** The first 2xx the contract lists: the status a call expects, and the schema it parses. */
function okSchema(contract: RouteContract): z.ZodType | undefined {
  const status = Object.keys(contract.responses)
    .map(Number)
    .filter((s) => s >= 200 && s < 300)
    .sort((a, b) => a - b)[0];
  const answer = status === undefined ? undefined : contract.responses[status];
  // An answer that is not JSON (an event stream) is read by its own reader, not parsed here.
  return answer && 'safeParse' in answer ? answer : undefined;
}

/** Sends the call a contract describes and parses the answer with its 2xx schema. */
export function routeCaller(transport: Transport) {
  return async function send<C extends RouteContract>(
    contract: C,
    args: RouteArgs<C>,
    opts: CallOptions = {},
  ): Promise<RouteAnswer<C>> {
    const a = args as Loose;
    const init: SendInit = { headers: { ...a.headers } };
    if (contract.body !== undefined) {
      init.body = JSON.stringify(a.body);
      init.headers = { 'content-type': 'application/json', ...init.headers };
    } else if (contract.bodyBytes && a.body !== undefined) {
      const raw = a.body as RawBody;
      init.body = raw.body;
      init.headers = {
        'content-type': raw.contentType ?? 'application/octet-stream',
        ...(raw.contentEncoding ? { 'content-encoding': raw.contentEncoding } : {}),
        ...init.headers,
      };
    }
    if (a.idempotent !== undefined) init.idempotent = a.idempotent;
    if (opts.token) init.headers = { ...init.headers, authorization: `Bearer ${opts.token}` };
    init.signal = opts.signal;
    const body = await transport.request(contract.method, fill(contract, a), init);
    const schema = okSchema(contract);
    if (!schema) return body as RouteAnswer<C>;
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new InvalidResponseError(
        `${contract.method} ${openApiPath(contract.path)}`,
        parsed.error.issues,
      );
    }
    return parsed.data as RouteAnswer<C>;
  };
}

// A route as a value: method, path and the zod schemas of its params, query, headers, body
// and answers. The API registers each route from its contract (so the OpenAPI document is
// drawn from it), and the client builds its calls from the same value, so neither can name
// a path, a field or an answer the other lacks. After ts-rest's router DSL
// (ts-rest/ts-rest libs/ts-rest/core/src/lib/dsl.ts), without its runtime.
import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteContract {
  method: HttpMethod;
  /** Fastify's form (`/runs/:id`), under the prefix the API mounts its group at. */
  path: string;
  tags: readonly string[];
  /** One line, the route's name in the API docs' list (a route without one does not compile). */
  summary: string;
  description?: string;
  params?: z.ZodType;
  query?: z.ZodType;
  headers?: z.ZodType;
  /** A JSON body; a route that takes its body as bytes (a file, NDJSON) has none here. */
  body?: z.ZodType;
  /** The body is taken as bytes (a file, NDJSON), parsed by the route itself. */
  bodyBytes?: true;
  /** Each status code's answer: its schema, or for an answer that is not JSON its media. */
  responses: { readonly [status: number]: z.ZodType | MediaResponse };
  /** Whether a bearer token is asked for (it is shown in the OpenAPI document). */
  bearer?: boolean;
  /** Mounted at the server's root (OTLP's own paths, the scrape), not under /api/v1. */
  root?: true;
}

/** An answer that is not JSON (an event stream), as the OpenAPI document names its media. */
export interface MediaResponse {
  description: string;
  content: Readonly<Record<string, { schema: z.ZodType }>>;
}

/** A group of routes, each named as the client calls it. */
export type RouteGroup = Readonly<Record<string, RouteContract>>;

/** Checks a group against RouteContract while keeping each route's exact types. */
export const defineRoutes = <const G extends RouteGroup>(group: G): G => group;

/** `/runs/:id/changes/:changeId` -> `'id' | 'changeId'`. */
export type PathParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** The params a route's path takes: from its schema when it has one, else one string each. */
export type ParamsOf<C extends RouteContract> = C extends { params: infer S extends z.ZodType }
  ? z.input<S>
  : { [K in PathParamNames<C['path']>]: string };

/** The success answer's schema: the first 2xx the contract lists. */
export type OkStatus<C extends RouteContract> = Extract<
  keyof C['responses'],
  200 | 201 | 202 | 204
>;
export type OkSchema<C extends RouteContract> = C['responses'][OkStatus<C>];

/** The path with its params put in, each URI-encoded; a param left out throws. */
export function pathWith(path: string, params: Readonly<Record<string, string>> = {}): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${path}: no value for :${name}`);
    return encodeURIComponent(value);
  });
}

/** `/runs/:id` -> `/runs/{id}`, as the OpenAPI document and error messages name it. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

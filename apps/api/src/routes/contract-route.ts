// A route's Fastify options from its contract in @meshbench/schema: method, url and every
// schema come from the one value the client and the OpenAPI document also read. The contract
// rides along in the route's config, so a test can hold the registered routes to the contracts.
import type { RouteContract } from '@meshbench/schema';

type Field<C, K extends string> = C extends { [P in K]: infer V } ? V : undefined;

/** The contract's schemas under Fastify's names, typed as they are so the zod provider infers. */
export interface ContractSchema<C extends RouteContract> {
  tags: readonly string[];
  summary?: string;
  description?: string;
  params: Field<C, 'params'>;
  querystring: Field<C, 'query'>;
  headers: Field<C, 'headers'>;
  body: Field<C, 'body'>;
  response: C['responses'];
  security?: ReadonlyArray<{ [label: string]: readonly string[] }>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The contract the route was registered from (every API route has one). */
    contract?: RouteContract;
  }
}

/**
 * `app.route({ ...fromContract(c), handler })`: the method, url, schema and config of the
 * route `c` describes; the route adds only what is its own (handler, onError, bodyLimit).
 */
export function fromContract<const C extends RouteContract>(contract: C) {
  const schema = {
    tags: contract.tags,
    ...(contract.summary !== undefined ? { summary: contract.summary } : {}),
    ...(contract.description !== undefined ? { description: contract.description } : {}),
    ...(contract.params ? { params: contract.params } : {}),
    ...(contract.query ? { querystring: contract.query } : {}),
    ...(contract.headers ? { headers: contract.headers } : {}),
    ...(contract.body ? { body: contract.body } : {}),
    ...(Object.keys(contract.responses).length > 0 ? { response: contract.responses } : {}),
    ...(contract.bearer ? { security: [{ bearer: [] }] } : {}),
  } as ContractSchema<C>;
  return {
    method: contract.method,
    url: contract.path,
    schema,
    config: { contract },
  };
}

// The tags of OTLP data points: resource and scope attributes, then the point's own, with
// the run (`meshbench.run`) and environment (`deployment.environment(.name)`) read out, and
// one shared object per distinct tag set, kept across requests.
import type { ResourceMessage, ScopeMessage } from './otlp-message.ts';
import { addAttributes, OTLP_LIMITS } from './otlp-values.ts';

export const RUN_ATTRIBUTE = 'meshbench.run';
const ENV_ATTRIBUTES = ['deployment.environment.name', 'deployment.environment'];
export const envOf = (tags: Record<string, string>): string | null =>
  tags[ENV_ATTRIBUTES[0] as string] || tags[ENV_ATTRIBUTES[1] as string] || null;

export interface Scope {
  /** JSON of the scope's tags: where its points' tag sets are found. */
  key: string;
  tags: Record<string, string>;
  runRef: string | null;
  env: string | null;
  /** Why the resource's or scope's attributes are refused, or null. */
  tooLong: string | null;
}

interface TagSet {
  tags: Record<string, string>;
  env: string | null;
  /** Why these tags are refused (a key or value over the limits), or null. */
  tooLong: string | null;
}

export function tooLong(tags: Record<string, string>): string | null {
  for (const [key, value] of Object.entries(tags)) {
    if (Buffer.byteLength(key) > OTLP_LIMITS.attributeKeyBytes) {
      return `an attribute key longer than ${OTLP_LIMITS.attributeKeyBytes} bytes ("${key.slice(0, 40)}...")`;
    }
    if (Buffer.byteLength(value) > OTLP_LIMITS.attributeValueBytes) {
      return `attribute "${key.slice(0, 100)}" has a value longer than ${OTLP_LIMITS.attributeValueBytes} bytes`;
    }
  }
  return null;
}

/** A step in the tree of tag sets: one attribute (key and value) further. */
export class TagNode {
  set: TagSet | undefined;
  private children: Map<string, Map<string, TagNode>> | undefined;

  child(key: string, value: string, made: () => void): TagNode {
    if (!this.children) this.children = new Map();
    let byValue = this.children.get(key);
    if (!byValue) {
      byValue = new Map();
      this.children.set(key, byValue);
    }
    let node = byValue.get(value);
    if (!node) {
      node = new TagNode();
      byValue.set(value, node);
      made();
    }
    return node;
  }
}

/**
 * The tag sets of data points, one object per distinct set, kept across requests (every
 * export repeats its series). A point's set is found by walking its attributes, in the
 * order sent, down a tree from its scope's node: a few lookups of short strings, where one
 * key of all its attributes would be built and hashed per point. Records share these
 * objects, so their tags are read-only; the ingest service finds a series' identity by the
 * object instead of serialising it.
 */
export class OtlpTagSets {
  private scopes = new Map<string, TagNode>();
  private nodes = 0;
  private readonly made = () => {
    this.nodes++;
  };

  constructor(private readonly limit = 100_000) {}

  /** The node of a scope (by the JSON of its tags); the tree starts over past `limit` nodes. */
  scope(key: string): TagNode {
    if (this.nodes >= this.limit) {
      this.scopes = new Map();
      this.nodes = 0;
    }
    let node = this.scopes.get(key);
    if (!node) {
      node = new TagNode();
      this.scopes.set(key, node);
      this.nodes++;
    }
    return node;
  }

  child(node: TagNode, key: string, value: string): TagNode {
    return node.child(key, value, this.made);
  }
}

export function resourceTagsOf(rm: ResourceMessage | null | undefined): Record<string, string> {
  const tags: Record<string, string> = {};
  addAttributes(tags, rm?.resource?.attributes);
  return tags;
}

export function scopeOf(
  resourceTags: Record<string, string>,
  sm: ScopeMessage | null | undefined,
): Scope {
  const scopeTags: Record<string, string> = { ...resourceTags };
  if (sm?.scope?.name) scopeTags['otel.scope.name'] = sm.scope.name;
  if (sm?.scope?.version) scopeTags['otel.scope.version'] = sm.scope.version;
  addAttributes(scopeTags, sm?.scope?.attributes);
  // The run and environment are read once here; points may still name their own run.
  const runRef = scopeTags[RUN_ATTRIBUTE] || null;
  const { [RUN_ATTRIBUTE]: _run, ...tags } = scopeTags;
  return { key: JSON.stringify(tags), tags, runRef, env: envOf(tags), tooLong: tooLong(tags) };
}

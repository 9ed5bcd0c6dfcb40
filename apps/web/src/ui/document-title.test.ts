import { describe, expect, it } from 'vitest';
import { documentTitle, meshLabel } from './document-title.ts';

describe('documentTitle', () => {
  it("puts the page's own title before the app's name", () => {
    expect(documentTitle('Runs')).toBe('Runs · meshbench');
  });
  it("is the app's name alone while the page has no title", () => {
    expect(documentTitle(undefined)).toBe('meshbench');
    expect(documentTitle('  ')).toBe('meshbench');
  });
});

describe('meshLabel', () => {
  it('writes the version after the name when there is one', () => {
    expect(meshLabel({ mesh: { name: 'istio', version: '1.22.0' } })).toBe('istio 1.22.0');
    expect(meshLabel({ mesh: { name: 'consul', version: null } })).toBe('consul');
  });
});

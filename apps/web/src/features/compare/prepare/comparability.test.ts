import type { Comparability } from '@meshbench/schema';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ComparabilityWarning } from '../components/ComparabilityWarning.tsx';
import { comparabilityNotes } from './comparability.ts';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const shortfall =
  'achieved RPS below target by more than 5 % in linkerd 2.16.0 (run 0000000b): 940 of 1,000 RPS (6 % below) at both, 64 connections, 1,000 RPS target';
const notComparable: Comparability = {
  runs: [A, B],
  comparable: false,
  warnings: [
    { kind: 'topology', runIds: [B, A], reason: 'different topology: nodes 4 in b, 3 in a' },
    { kind: 'rps-shortfall', runIds: [B], reason: shortfall },
  ],
};

describe('comparabilityNotes', () => {
  it('gives each warning its heading, in the order the API gave them', () => {
    expect(comparabilityNotes(notComparable)).toEqual([
      {
        kind: 'topology',
        title: 'Different topology',
        reason: 'different topology: nodes 4 in b, 3 in a',
      },
      { kind: 'rps-shortfall', title: 'Load short of its target rate', reason: shortfall },
    ]);
  });
  it('has nothing to say while loading, for one run, or for comparable runs', () => {
    expect(comparabilityNotes(undefined)).toEqual([]);
    expect(comparabilityNotes(null)).toEqual([]);
    expect(comparabilityNotes({ runs: [A, B], comparable: true, warnings: [] })).toEqual([]);
  });
});

describe('ComparabilityWarning', () => {
  it('shows every reason with its numbers, and nothing when the runs are comparable', () => {
    const html = renderToStaticMarkup(
      createElement(ComparabilityWarning, { comparability: notComparable }),
    );
    expect(html).toContain('data-testid="comparability-warning"');
    expect(html).toContain(
      '<li data-kind="rps-shortfall"><strong>Load short of its target rate</strong>: achieved RPS below target by more than 5 % in linkerd 2.16.0 (run 0000000b): 940 of 1,000 RPS (6 % below)',
    );
    expect(html.match(/<li /g)).toHaveLength(2);
    expect(
      renderToStaticMarkup(
        createElement(ComparabilityWarning, {
          comparability: { runs: [A, B], comparable: true, warnings: [] },
        }),
      ),
    ).toBe('');
  });
});

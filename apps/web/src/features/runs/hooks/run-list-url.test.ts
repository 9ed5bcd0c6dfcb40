import { describe, expect, it } from 'vitest';
import {
  labelFilter,
  nextSort,
  pageCount,
  pageRange,
  parseRunListParams,
  runListApiQuery,
  runListSearch,
  sortDirection,
} from './run-list-url.ts';

describe('the runs list URL', () => {
  it('reads filters, labels, days, sort and page', () => {
    const s = parseRunListParams(
      new URLSearchParams(
        'mesh=consul&benchmark=global-scale&label=branch:main&label=seed=1&from=2026-03-01&to=2026-03-02&q=hey&sort=mesh&page=3&status=finished',
      ),
    );
    expect(s).toEqual({
      filters: {
        mesh: 'consul',
        benchmark: 'global-scale',
        status: 'finished',
        labels: ['branch=main', 'seed=1'],
        from: '2026-03-01',
        to: '2026-03-02',
        q: 'hey',
      },
      sort: 'mesh',
      page: 3,
    });
  });
  it('drops what it cannot use, and says which labels it left out', () => {
    expect(
      parseRunListParams(
        new URLSearchParams('mesh=&label=nocolon&from=yesterday&sort=size&page=-2&status=odd'),
      ),
    ).toEqual({
      filters: { labels: [] },
      labelErrors: ['label "nocolon" must be key=value (or key:value), e.g. branch=main'],
      sort: '-startedAt',
      page: 1,
    });
  });
  it('writes only what differs from the defaults, in a stable order', () => {
    const search = runListSearch({
      filters: { scenario: 's', mesh: 'consul', benchmark: 'b', labels: ['k:v'], q: 'x' },
      sort: '-startedAt',
      page: 1,
    });
    expect(search.toString()).toBe('mesh=consul&benchmark=b&scenario=s&label=k%3Av&q=x');
    expect(runListSearch({ filters: { labels: [] }, sort: 'status', page: 2 }).toString()).toBe(
      'sort=status&page=2',
    );
  });
  it('asks the API for one page, "to" including its whole day', () => {
    expect(
      runListApiQuery({
        filters: { labels: ['k:v'], from: '2026-03-01', to: '2026-03-31' },
        sort: '-mesh',
        page: 3,
      }),
    ).toMatchObject({
      labels: ['k:v'],
      from: '2026-03-01T00:00:00Z',
      to: '2026-04-01T00:00:00Z',
      sort: '-mesh',
      limit: 50,
      offset: 100,
    });
  });
});

describe('sorting by a column', () => {
  it('flips the sorted column and starts another in its natural direction', () => {
    expect(nextSort('-startedAt', 'startedAt')).toBe('startedAt');
    expect(nextSort('startedAt', 'startedAt')).toBe('-startedAt');
    expect(nextSort('-startedAt', 'mesh')).toBe('mesh');
    expect(nextSort('mesh', 'mesh')).toBe('-mesh');
    expect(nextSort('mesh', 'startedAt')).toBe('-startedAt');
  });
  it('says which way a column is sorted', () => {
    expect(sortDirection('-mesh', 'mesh')).toBe('descending');
    expect(sortDirection('mesh', 'mesh')).toBe('ascending');
    expect(sortDirection('mesh', 'status')).toBe('none');
  });
});

describe('pages', () => {
  it('says which runs are shown', () => {
    expect(pageRange(1, 50, 10000)).toBe('1–50 of 10,000');
    expect(pageRange(200, 50, 10000)).toBe('9,951–10,000 of 10,000');
    expect(pageRange(3, 7, 107)).toBe('101–107 of 107');
    expect(pageRange(1, 0, 0)).toBe('0 of 0');
  });
  it('counts pages of 50', () => {
    expect(pageCount(0)).toBe(1);
    expect(pageCount(50)).toBe(1);
    expect(pageCount(51)).toBe(2);
    expect(pageCount(10000)).toBe(200);
  });
});

describe('labelFilter', () => {
  it('takes k=v and k:v, and keeps them as the list shows labels, k=v', () => {
    expect(labelFilter('branch=main')).toEqual({ label: 'branch=main' });
    expect(labelFilter(' branch:main ')).toEqual({ label: 'branch=main' });
    expect(labelFilter('branch = main')).toEqual({ label: 'branch=main' });
  });
  it('splits at the first = or :, so a value may hold either', () => {
    expect(labelFilter('ci=https://ci.example/1')).toEqual({ label: 'ci=https://ci.example/1' });
    expect(labelFilter('ci:a=b')).toEqual({ label: 'ci=a=b' });
  });
  it('says what is wrong with any other form', () => {
    expect(labelFilter('main')).toEqual({
      error: 'label "main" must be key=value (or key:value), e.g. branch=main',
    });
    expect(labelFilter('branch=')).toEqual({
      error: 'label "branch=" has no value after "=": write key=value',
    });
    expect(labelFilter(':main')).toEqual({
      error: 'label ":main" has no key before ":": write key=value',
    });
  });
});

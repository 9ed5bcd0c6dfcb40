import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PROPAGATION_OPTIONS,
  isDefaultOptions,
  optionsFromSearch,
  optionsToSearch,
  parsePercentiles,
  parseWithinMs,
  requestedPercentiles,
  stageFor,
} from './propagation-options.ts';

describe('propagation options in the URL', () => {
  it('opens with P50, P96, P99 and 1 s when the URL says nothing', () => {
    expect(optionsFromSearch(new URLSearchParams(''))).toEqual({
      percentiles: [50, 96, 99],
      withinMs: 1000,
    });
    expect(isDefaultOptions(optionsFromSearch(new URLSearchParams('')))).toBe(true);
  });
  it('reads the percentiles and the threshold a shared link holds', () => {
    expect(optionsFromSearch(new URLSearchParams('percentiles=99,50,75&withinMs=2500'))).toEqual({
      percentiles: [50, 75, 99],
      withinMs: 2500,
    });
  });
  it('falls back to the default for what it cannot read', () => {
    expect(optionsFromSearch(new URLSearchParams('percentiles=abc&withinMs=-1'))).toEqual(
      DEFAULT_PROPAGATION_OPTIONS,
    );
  });
  it('writes only what differs from the default, keeping the other params', () => {
    const base = new URLSearchParams('tab=x');
    expect(optionsToSearch(base, DEFAULT_PROPAGATION_OPTIONS).toString()).toBe('tab=x');
    expect(optionsToSearch(base, { percentiles: [50, 99.9], withinMs: 1000 }).toString()).toBe(
      'tab=x&percentiles=50%2C99.9',
    );
    const back = optionsToSearch(new URLSearchParams('percentiles=1&withinMs=5'), {
      percentiles: [50, 96, 99],
      withinMs: 1000,
    });
    expect(back.toString()).toBe('');
  });
  it('keeps ?clock=corrected, and only that value, for the charts', () => {
    const corrected = optionsFromSearch(new URLSearchParams('clock=corrected'));
    expect(corrected).toEqual({ ...DEFAULT_PROPAGATION_OPTIONS, clock: 'corrected' });
    expect(optionsFromSearch(new URLSearchParams('clock=skewed'))).toEqual(
      DEFAULT_PROPAGATION_OPTIONS,
    );
    expect(optionsToSearch(new URLSearchParams(''), corrected).toString()).toBe('clock=corrected');
    expect(
      optionsToSearch(
        new URLSearchParams('clock=corrected'),
        DEFAULT_PROPAGATION_OPTIONS,
      ).toString(),
    ).toBe('');
  });
});

describe('the stage in the URL', () => {
  it('reads ?stage= and writes it back, leaving it out when none is chosen', () => {
    const options = optionsFromSearch(new URLSearchParams('stage=received&withinMs=500'));
    expect(options).toEqual({ percentiles: [50, 96, 99], withinMs: 500, stage: 'received' });
    expect(optionsToSearch(new URLSearchParams('x=1'), options).toString()).toBe(
      'x=1&withinMs=500&stage=received',
    );
    const none = optionsToSearch(new URLSearchParams('stage=serving'), {
      ...options,
      stage: undefined,
    });
    expect(none.has('stage')).toBe(false);
    expect(
      optionsFromSearch(new URLSearchParams(`stage=${'s'.repeat(101)}`)).stage,
    ).toBeUndefined();
    expect(optionsFromSearch(new URLSearchParams('stage=')).stage).toBeUndefined();
  });

  it('asks a change for the URL stage only when the change has it', () => {
    const stages = [{ stage: 'received' }, { stage: 'applied' }];
    const options = { ...DEFAULT_PROPAGATION_OPTIONS, stage: 'received' };
    expect(stageFor(options, stages)).toBe('received');
    expect(stageFor(options, [{ stage: 'applied' }])).toBeUndefined();
    expect(stageFor(DEFAULT_PROPAGATION_OPTIONS, stages)).toBeUndefined();
  });
});

describe('parsing', () => {
  it('takes what the API takes: (0, 100], a comma list, spaces allowed', () => {
    expect(parsePercentiles('50, 96,99')).toEqual([50, 96, 99]);
    expect(parsePercentiles('99.9,99.9,50')).toEqual([50, 99.9]);
    expect(parsePercentiles('0')).toBeNull();
    expect(parsePercentiles('101')).toBeNull();
    expect(parsePercentiles('50,,90')).toBeNull();
    expect(parsePercentiles('')).toBeNull();
    expect(parsePercentiles('1,2,3,4,5,6,7,8,9')).toBeNull();
  });
  it('takes a non-negative number of ms', () => {
    expect(parseWithinMs('2500')).toBe(2500);
    expect(parseWithinMs('0')).toBe(0);
    expect(parseWithinMs('-1')).toBeNull();
    expect(parseWithinMs(' ')).toBeNull();
    expect(parseWithinMs('1e3')).toBe(1000);
  });
});

describe('requestedPercentiles', () => {
  it('asks for the table percentiles plus the marked ones', () => {
    expect(requestedPercentiles(DEFAULT_PROPAGATION_OPTIONS)).toEqual([50, 90, 95, 96, 99, 99.9]);
    expect(requestedPercentiles({ percentiles: [75, 99], withinMs: 1000 })).toEqual([
      50, 75, 90, 95, 96, 99, 99.9,
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { connectionsLabel, connectionsTick } from './panel-props.ts';

describe('the connections axis', () => {
  it('groups thousands in ticks and labels, as every count on the page', () => {
    // The 500k RPS benchmark's generators hold 62,500 and 1,250,000 connections.
    expect(connectionsTick(1_250_000)).toBe('1,250,000');
    expect(connectionsTick(64)).toBe('64');
    expect(connectionsLabel(62_500)).toBe('62,500 connections');
    expect(connectionsLabel(1)).toBe('1 connection');
  });
});

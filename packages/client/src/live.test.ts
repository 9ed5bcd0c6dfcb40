// The event-stream parser against the WHATWG standard's own examples (9.2.6) and its
// line-ending, comment and id rules, fed whole and split at every character.
import { describe, expect, it } from 'vitest';
import { EventStreamParser, type ServerSentEvent } from './live.ts';

const parseAll = (text: string, split = false): ServerSentEvent[] => {
  const p = new EventStreamParser();
  if (!split) return p.push(text);
  return [...text].flatMap((c) => p.push(c));
};

describe('EventStreamParser', () => {
  it("reads the standard's examples: two data lines join with LF; no data, no event", () => {
    // From 9.2.6: "data: YHOO\ndata: +2\ndata: 10\n\n" is one message "YHOO\n+2\n10".
    const text =
      'data: YHOO\ndata: +2\ndata: 10\n\n: test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n';
    for (const split of [false, true]) {
      const events = parseAll(text, split);
      expect(events).toEqual([
        { type: 'message', data: 'YHOO\n+2\n10', lastEventId: '' },
        { type: 'message', data: 'first event', lastEventId: '1' },
        // An `id` field with no value sets the last event id to empty.
        { type: 'message', data: 'second event', lastEventId: '' },
        // Only one leading space is dropped.
        { type: 'message', data: ' third event', lastEventId: '' },
      ]);
    }
  });

  it('takes CRLF, LF and a lone CR as line ends, a CRLF split across chunks as one', () => {
    const p = new EventStreamParser();
    expect(p.push('event: state\r')).toEqual([]);
    expect(p.push('\ndata: a\r\r')).toEqual([{ type: 'state', data: 'a', lastEventId: '' }]);
    expect(p.push('data: b\n\n')).toEqual([{ type: 'message', data: 'b', lastEventId: '' }]);
  });

  it('keeps the last event id across events, ignores one with NUL, reads retry digits only', () => {
    const p = new EventStreamParser();
    const events = p.push('id: 7\nretry: 1500\ndata: x\n\nid: 8\0\nretry: 1s\ndata: y\n\n');
    expect(events.map((e) => e.lastEventId)).toEqual(['7', '7']);
    expect(p.retryMs).toBe(1500);
    // A field with no colon is a name with an empty value; an unknown one is ignored.
    expect(p.push('data\nfoo: bar\n\n')).toEqual([{ type: 'message', data: '', lastEventId: '7' }]);
  });
});

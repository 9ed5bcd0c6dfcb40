import { describe, expect, it } from 'vitest';
import { ANONYMOUS, type Principal } from '../domain/access.ts';
import { UploadCounts } from './upload-counts.ts';

const project = (projectId: string): Principal => ({ kind: 'project', projectId, tokenId: 't' });
const ADMIN: Principal = { kind: 'admin' };

describe('UploadCounts', () => {
  it('counts uploads stored, retried and rejected', () => {
    const counts = new UploadCounts();
    counts.countStored(3);
    counts.countStored(0);
    counts.countDuplicate();
    counts.countRejected(400, 'line 2: bad', ANONYMOUS);
    expect(counts.seenBy(ADMIN)).toEqual({
      stored: 2,
      items: 3,
      duplicates: 1,
      rejected: 1,
      lastRejection: { at: expect.any(String), status: 400, message: 'line 2: bad' },
    });
  });

  it("shows the last rejection to the admin, a project's own to its token, none to others", () => {
    const counts = new UploadCounts();
    counts.countRejected(422, 'of project a', project('a'));
    counts.countRejected(401, 'no token', ANONYMOUS);
    expect(counts.seenBy(ADMIN).lastRejection?.message).toBe('no token');
    expect(counts.seenBy(project('a')).lastRejection?.message).toBe('of project a');
    expect(counts.seenBy(project('b')).lastRejection).toBeNull();
    expect(counts.seenBy(ANONYMOUS).lastRejection).toBeNull();
    expect(counts.seenBy(project('b')).rejected).toBe(2); // counts are everyone's
  });

  it('remembers the last rejection of at most 1000 projects, forgetting the oldest', () => {
    const counts = new UploadCounts();
    for (let i = 0; i <= 1000; i++) counts.countRejected(400, `p${i}`, project(`p${i}`));
    expect(counts.seenBy(project('p0')).lastRejection).toBeNull();
    expect(counts.seenBy(project('p1')).lastRejection?.message).toBe('p1');
    expect(counts.seenBy(project('p1000')).lastRejection?.message).toBe('p1000');
  });
});

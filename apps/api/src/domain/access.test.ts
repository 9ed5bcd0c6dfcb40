import { describe, expect, it } from 'vitest';
import {
  ANONYMOUS,
  type Principal,
  privateProjectsVisible,
  readRefusal,
  writeRefusal,
} from './access.ts';

const admin: Principal = { kind: 'admin' };
const tokenA: Principal = { kind: 'project', projectId: 'A', tokenId: 't1' };

describe('access', () => {
  it('writes: the admin anywhere, a token in its own project, nobody without a token', () => {
    expect(writeRefusal(admin, 'B')).toBeNull();
    expect(writeRefusal(tokenA, 'A')).toBeNull();
    expect(writeRefusal(tokenA, 'B')?.status).toBe(403);
    expect(writeRefusal(ANONYMOUS, 'A')?.status).toBe(401);
  });
  it("reads: public to all, private to the admin and the project's tokens", () => {
    expect(readRefusal(ANONYMOUS, 'A', 'public')).toBeNull();
    expect(readRefusal(ANONYMOUS, 'A', 'private')?.status).toBe(401);
    expect(readRefusal(tokenA, 'A', 'private')).toBeNull();
    expect(readRefusal(tokenA, 'B', 'private')?.status).toBe(403);
    expect(readRefusal(admin, 'B', 'private')).toBeNull();
  });
  it('lists: which private projects show', () => {
    expect(privateProjectsVisible(admin)).toBe('all');
    expect(privateProjectsVisible(tokenA)).toBe('A');
    expect(privateProjectsVisible(ANONYMOUS)).toBeNull();
  });
});

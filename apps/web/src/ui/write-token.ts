// The write token a person pasted for uploads, kept in this browser only (localStorage),
// so that it is asked for once; kept only once the server has accepted it, and forgotten on
// request. And what a refused write means, said to the person rather than in HTTP terms.
import { FORMAT_HINT } from '@meshbench/schema';
import { ApiRequestError } from '../api/client.ts';

// The key the rest of the app (and the e2e suite's storage state) uses for the same token.
const KEY = 'meshbench.token';

export function readWriteToken(): string {
  try {
    return window.localStorage.getItem(KEY) ?? '';
  } catch {
    return '';
  }
}

/** Call once the server has accepted the token: a refused one is never kept. */
export function saveWriteToken(token: string): void {
  try {
    if (token) window.localStorage.setItem(KEY, token);
    else window.localStorage.removeItem(KEY);
  } catch {
    // Storage refused (private mode): the token lasts as long as the form.
  }
}

export function clearWriteToken(): void {
  saveWriteToken('');
}

/** The token was missing or refused (and which): a form then asks for another. */
export function tokenProblem(error: unknown): 'missing' | 'wrong' | 'other-project' | null {
  if (!(error instanceof ApiRequestError)) return null;
  if (error.status === 401)
    return /not valid|unknown|revoked/i.test(error.message) ? 'wrong' : 'missing';
  if (error.status === 403) return 'other-project';
  return null;
}

/** What went wrong and what to do, for a person: `doing` is the action, "upload the file". */
export function userError(error: unknown, doing: string): string {
  switch (tokenProblem(error)) {
    case 'missing':
      return `To ${doing}, paste a write token: the project's token, or the one the server printed when it first started.`;
    case 'wrong':
      return 'This write token was not accepted (unknown or revoked), so it was not kept. Check it, or ask for a new one, and paste it again.';
    case 'other-project':
      return "This write token belongs to another project than these runs. Paste a token of the runs' project.";
  }
  if (!(error instanceof ApiRequestError) || error.status === 0) {
    return `Could not reach the server to ${doing}. Check the connection and try again.`;
  }
  if (error.status === 413)
    return 'The file is larger than the server accepts. Split it and send the parts.';
  if (error.status === 404) return `Could not ${doing}: the run no longer exists.`;
  if (error.status === 503 || error.status === 429) {
    return `The server is busy or its database is unavailable, so it could not ${doing}. Try again in a minute.`;
  }
  if (error.status >= 500) {
    return `The server failed to ${doing}. Try again; if it keeps failing, tell whoever runs this meshbench.`;
  }
  if (error.code === 'undetectable') {
    // The API's hint (?format=) in the form's terms.
    return `Could not ${doing}: ${error.message.replace(FORMAT_HINT, 'pick it in the Format list')}.`;
  }
  // A 4xx names what it could not read (line, field): that is what the person must fix.
  return `Could not ${doing}: ${error.message}. Fix the file (or pick its format) and try again.`;
}

// The write token a person pasted for uploads, kept in this browser only (localStorage),
// so that it is asked for once.
// The key the rest of the app (and the e2e suite's storage state) uses for the same token.
const KEY = 'meshbench.token';

export function readWriteToken(): string {
  try {
    return window.localStorage.getItem(KEY) ?? '';
  } catch {
    return '';
  }
}

export function saveWriteToken(token: string): void {
  try {
    if (token) window.localStorage.setItem(KEY, token);
    else window.localStorage.removeItem(KEY);
  } catch {
    // Storage refused (private mode): the token lasts as long as the form.
  }
}

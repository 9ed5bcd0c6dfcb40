// "Forget the saved token": removes the write token this browser keeps (a shared machine, a
// token revoked), from any form that uses it.
import { useState } from 'react';
import { clearWriteToken, readWriteToken } from './write-token.ts';

export function ForgetTokenButton({ onForget }: { onForget?: () => void }) {
  const [saved, setSaved] = useState(() => readWriteToken() !== '');
  if (!saved) return null;
  return (
    <button
      type="button"
      className="link-button"
      data-testid="forget-token"
      onClick={() => {
        clearWriteToken();
        setSaved(false);
        onForget?.();
      }}
    >
      Forget the saved token
    </button>
  );
}

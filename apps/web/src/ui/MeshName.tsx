// A mesh's name and version beside its fixed colour.
import { meshColor } from '../charts/prepare/mesh-colors.ts';

export function MeshName({ name, version }: { name: string; version: string | null }) {
  return (
    <span className="mesh">
      <span className="mesh-swatch" style={{ background: meshColor(name) }} aria-hidden="true" />
      <span className="mesh-name">{name}</span>
      {version && <span className="mesh-version">{version}</span>}
    </span>
  );
}

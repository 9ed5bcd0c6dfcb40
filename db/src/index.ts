// The database package: drizzle schema, the two drivers, migrations and COPY helpers.
export * from './client.ts';
export { CopyBinaryReader, timestampLiteral, uuidLiteral } from './copy-binary-reader.ts';
export * from './copy-binary-writer.ts';
export { copyText } from './copy-text.ts';
export * from './distribution.ts';
export { migrationsFolder } from './migrations-folder.ts';
export {
  formatLsn,
  parseLsn,
  READ_REASONS,
  type ReadReason,
  type ReadTarget,
  type StandbyReads,
  type StandbyState,
} from './read-routing.ts';
export { DEFAULT_STAGE } from './schema/events.ts';
export * as tables from './schema/index.ts';
export { DEFAULT_PROJECT_ID } from './schema/projects.ts';
export {
  isUploadConnectionsBusy,
  type UploadConnections,
  UploadConnectionsBusy,
} from './upload-connections.ts';
export { isUuid } from './uuid.ts';

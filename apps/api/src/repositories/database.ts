// The database as the rest of the API sees it, through the repositories: the handle's type
// (plugins and wiring pass it on), opening and migrating it (the database plugin), and what
// counts as it being away (the error handler's 503). Nothing outside repositories/ imports
// @meshbench/db or drizzle-orm itself.
export {
  type Database,
  databaseUnavailableReason,
  formatLsn,
  isUploadConnectionsBusy,
  migrateDatabase,
  openDatabase,
  parseLsn,
  READ_REASONS,
  type ReadReason,
  type ReadTarget,
  type StandbyReads,
} from '@meshbench/db';

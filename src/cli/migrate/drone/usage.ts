/** `svc migrate drone --help`; apart from the command, so that `svc migrate --help` loads no database code. */
export const DRONE_USAGE = `Usage: svc migrate drone [--from DATASOURCE] [--from-driver DRIVER] [--drone-secret KEY]
                         [--history] [--save-templates DIR] [--dry-run]

Brings a Drone 2.x server's database into svc's: users, repositories, permissions, repository and
organization secrets, cron jobs, templates, and with --history the builds with their logs. Drone's
database is only read. svc's database is the one of svc's server settings (SVC_DATABASE_DRIVER,
SVC_DATABASE_DATASOURCE, SVC_DATABASE_SECRET and the git provider's), read as svc server reads them.
What svc already has is left as it is, so running it again brings only what is missing.
  --from DATASOURCE     Drone's database, as DRONE_DATABASE_DATASOURCE says (the default): a SQLite
                        file, user:password@tcp(host:port)/db, or postgres://user:password@host/db
  --from-driver DRIVER  sqlite3, mysql or postgres (default: DRONE_DATABASE_DRIVER, else the
                        datasource's form says)
  --drone-secret KEY    the DRONE_DATABASE_SECRET Drone encrypted secrets with (default: that variable)
  --history             also the builds, stages, steps and logs, under their numbers
  --save-templates DIR  also write Drone's templates to DIR/<namespace>/<name> (for svc exec
                        --template-dir DIR/<namespace>)
  --dry-run             bring everything into a throwaway in-memory database instead of svc's, and
                        report what that took (svc's database is not opened)
Exit codes: 0 done (skipped items are listed), 1 a database could not be read or written or the key
is wrong, 2 wrong usage or settings.
`;

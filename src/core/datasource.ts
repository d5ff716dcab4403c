/** The database drivers of the spec: a SQLite file, MySQL/MariaDB, PostgreSQL. */
export const DATABASE_DRIVERS = ['embedded_sql', 'sql_a', 'sql_b'] as const;
export type DatabaseDriver = (typeof DATABASE_DRIVERS)[number];

/**
 * A parsed SVC_DATABASE_DRIVER + SVC_DATABASE_DATASOURCE pair.
 * - embedded_sql: a file path (relative paths are relative to the working directory).
 * - sql_a: `<user>:<password>@tcp(<host>:<port>)/<database>?parseTime=true`
 * - sql_b: `<scheme>://<user>:<password>@<host>:<port>/<database>?sslmode=disable`
 */
export type Datasource =
  | { driver: 'embedded_sql'; path: string }
  | {
      driver: 'sql_a';
      user: string;
      password: string;
      host: string;
      port: number;
      database: string;
      params: Record<string, string>;
    }
  | {
      driver: 'sql_b';
      scheme: string;
      user: string;
      password: string;
      host: string;
      port: number;
      database: string;
      params: Record<string, string>;
    };

#!/bin/sh
# Run once by the postgres image on an empty data directory (compose only).
#
# The dashboard logs in as reparto_web, a member of reparto_dashboard: the read-only role
# migration 0002 grants SELECT on the ops.* views (and nothing else) to. The role is created
# here first so the login can join it; the migration then only grants.
# psql reads the password from the secret file itself (\set with backticks): it is never on argv.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'SQL'
\set password `cat /run/secrets/dashboard_database_password`
SELECT 'CREATE ROLE reparto_dashboard NOLOGIN'
 WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reparto_dashboard') \gexec
SELECT 'CREATE ROLE reparto_web LOGIN IN ROLE reparto_dashboard'
 WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reparto_web') \gexec
ALTER ROLE reparto_web WITH LOGIN PASSWORD :'password' CONNECTION LIMIT 20;
SQL

/**
 * Callback tokens (`ctx.createToken`): one row per token a workflow made, found by its random
 * id. A token is `pending` until `tm.completeToken` (or the signed URL) completes it,
 * `tm.cancelToken` cancels it, or its waiting workflow finds it past `expires_at` and marks it
 * `expired`. `data` is the completing payload; `schema` the JSON Schema it was checked by.
 * Rows leave with their job (sql/job-removal.ts); pending and expired ones past `expires_at`
 * are swept on their own (the partial index serves that walk).
 */
export const name = 'callback-tokens';

export const sql = /* sql */ `
create table /*schema*/job_tokens (
  id uuid primary key,
  job_id bigint not null,
  name text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  state text not null default 'pending' check (state in ('pending', 'completed', 'cancelled', 'expired')),
  settled_at timestamptz,
  data jsonb,
  schema jsonb,
  unique (job_id, name)
);
create index job_tokens_expiry_idx on /*schema*/job_tokens (expires_at) where state in ('pending', 'expired');
`;

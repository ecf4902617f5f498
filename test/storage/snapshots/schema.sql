-- columns
audit_log.id bigint not null
audit_log.at timestamp with time zone not null
audit_log.actor text not null
audit_log.source text not null
audit_log.action text not null
audit_log.target jsonb not null default '{}'::jsonb
audit_log.rows integer not null default 0
checkpoints.job_id bigint not null
checkpoints.name text not null
checkpoints.kind text not null default 'step'::text
checkpoints.output jsonb
checkpoints.created_at timestamp with time zone not null default now()
checkpoints.seq integer
job_dependencies.job_id bigint not null
job_dependencies.dependency_id bigint not null
job_dependencies.settled boolean not null default false
job_logs.id bigint not null
job_logs.job_id bigint not null
job_logs.attempt integer not null
job_logs.level text not null
job_logs.message text not null
job_logs.attrs jsonb
job_logs.logged_at timestamp with time zone not null default now()
job_logs.purge_after timestamp with time zone
job_tokens.id uuid not null
job_tokens.job_id bigint not null
job_tokens.name text not null
job_tokens.created_at timestamp with time zone not null default now()
job_tokens.expires_at timestamp with time zone not null
job_tokens.state text not null default 'pending'::text
job_tokens.settled_at timestamp with time zone
job_tokens.data jsonb
job_tokens.schema jsonb
jobs.id bigint not null
jobs.queue text not null
jobs.status text not null default 'pending'::text
jobs.data jsonb not null default 'null'::jsonb
jobs.output jsonb
jobs.error jsonb
jobs.priority integer not null default 0
jobs.attempts integer not null default 0
jobs.max_attempts integer not null default 3
jobs.run_at timestamp with time zone not null default now()
jobs.expire_at timestamp with time zone
jobs.created_at timestamp with time zone not null default now()
jobs.started_at timestamp with time zone
jobs.finished_at timestamp with time zone
jobs.parent_id bigint
jobs.root_id bigint
jobs.parent_step text
jobs.lock_token uuid
jobs.locked_by text
jobs.locked_until timestamp with time zone
jobs.unique_key text
jobs.wait jsonb
jobs.paused_from text
jobs.retention jsonb not null default '{}'::jsonb
jobs.purge_after timestamp with time zone
jobs.attempt_log jsonb
jobs.key text
jobs.tier text
jobs.held_by text
jobs.held_key text
jobs.fold_key text
jobs.tags text[]
jobs.progress jsonb
jobs.metadata jsonb
jobs.log_dropped integer
jobs.trace jsonb
jobs.ran_by text
jobs.version text
jobs.forked_from bigint
jobs.dependents integer not null default 0
jobs.dependencies_left integer
jobs.on_dependency_failure text
key_settings.queue text not null
key_settings.key text not null
key_settings.concurrency integer
key_settings.paused boolean not null default false
key_settings.updated_at timestamp with time zone not null default now()
limiter_buckets.limiter text not null
limiter_buckets.key text not null
limiter_buckets.tat timestamp with time zone not null
limiter_buckets.booked timestamp with time zone not null
limiters.name text not null
limiters.limit_count integer not null
limiters.period_seconds double precision not null
limiters.burst integer not null default 0
limiters.created_at timestamp with time zone not null default now()
limiters.updated_at timestamp with time zone not null default now()
maintenance.name text not null
maintenance.last_run_at timestamp with time zone
maintenance.last_result jsonb
queues.name text not null
queues.options jsonb not null default '{}'::jsonb
queues.paused boolean not null default false
queues.created_at timestamp with time zone not null default now()
queues.updated_at timestamp with time zone not null default now()
queues.engine_retention jsonb
retention_control.id integer not null
retention_control.paused boolean not null default false
retention_control.reason text
retention_control.paused_at timestamp with time zone
retention_control.paused_by text
retention_control.version bigint not null default 0
retention_hold_jobs.hold_id bigint not null
retention_hold_jobs.job_id bigint not null
retention_hold_jobs.tree_id bigint not null
retention_holds.id bigint not null
retention_holds.reason text not null
retention_holds.queue text
retention_holds.created_at timestamp with time zone not null default now()
retention_holds.created_by text
run_history.job_id bigint not null
run_history.seq integer not null
run_history.attempt integer not null
run_history.kind text not null
run_history.at timestamp with time zone not null
run_history.ended_at timestamp with time zone
run_history.worker text
run_history.detail jsonb
schedule_fires.schedule_name text not null
schedule_fires.fire_at timestamp with time zone not null
schedule_fires.job_id bigint not null
schedule_fires.created_at timestamp with time zone not null default now()
schedules.name text not null
schedules.cron text not null
schedules.timezone text not null default 'UTC'::text
schedules.queue text not null
schedules.data jsonb not null default 'null'::jsonb
schedules.options jsonb not null default '{}'::jsonb
schedules.last_fire_at timestamp with time zone
schedules.created_at timestamp with time zone not null default now()
schedules.updated_at timestamp with time zone not null default now()
schedules.paused boolean not null default false
schedules.fired_at timestamp with time zone
signals.id bigint not null
signals.job_id bigint not null
signals.name text not null
signals.payload jsonb
signals.created_at timestamp with time zone not null default now()
signals.consumed_at timestamp with time zone
signals.consumed_by text
signals.purge_after timestamp with time zone
sweeps.id bigint not null
sweeps.kind text not null
sweeps.started_at timestamp with time zone not null
sweeps.finished_at timestamp with time zone not null
sweeps.jobs integer not null default 0
sweeps.signals integer not null default 0
sweeps.unique_locks integer not null default 0
sweeps.detail jsonb
sweeps.error text
tidemark_migrations.version integer not null
tidemark_migrations.name text not null
tidemark_migrations.applied_at timestamp with time zone not null default now()
unique_locks.scope text not null
unique_locks.job_id bigint not null
unique_locks.expires_at timestamp with time zone not null
unique_locks.created_at timestamp with time zone not null default now()
workers.id text not null
workers.host text not null
workers.pid integer not null
workers.queues text[]
workers.concurrency integer not null
workers.settings jsonb not null
workers.heartbeat_seconds double precision not null
workers.started_at timestamp with time zone not null default now()
workers.heartbeat_at timestamp with time zone not null default now()
workers.running integer not null default 0
workers.instance text not null default ''::text
-- indexes
CREATE INDEX audit_log_at_idx ON audit_log USING btree (at)
CREATE UNIQUE INDEX audit_log_pkey ON audit_log USING btree (id)
CREATE UNIQUE INDEX checkpoints_pkey ON checkpoints USING btree (job_id, name)
CREATE INDEX job_dependencies_dependency_idx ON job_dependencies USING btree (dependency_id)
CREATE UNIQUE INDEX job_dependencies_pkey ON job_dependencies USING btree (job_id, dependency_id)
CREATE INDEX job_logs_job_idx ON job_logs USING btree (job_id, id)
CREATE UNIQUE INDEX job_logs_pkey ON job_logs USING btree (id)
CREATE INDEX job_logs_purge_idx ON job_logs USING btree (purge_after) WHERE (purge_after IS NOT NULL)
CREATE INDEX job_tokens_expiry_idx ON job_tokens USING btree (expires_at) WHERE (state = ANY (ARRAY['pending'::text, 'expired'::text]))
CREATE UNIQUE INDEX job_tokens_job_id_name_key ON job_tokens USING btree (job_id, name)
CREATE UNIQUE INDEX job_tokens_pkey ON job_tokens USING btree (id)
CREATE INDEX jobs_cancel_held_idx ON jobs USING btree (queue) WHERE ((status = 'cancelled'::text) AND (lock_token IS NOT NULL))
CREATE INDEX jobs_claim_idx ON jobs USING btree (queue, priority DESC, run_at, id) WHERE ((status = ANY (ARRAY['pending'::text, 'retry'::text, 'waiting'::text])) AND (key IS NULL))
CREATE INDEX jobs_due_idx ON jobs USING btree (run_at) WHERE ((status = ANY (ARRAY['retry'::text, 'waiting'::text])) OR ((status = 'pending'::text) AND (run_at > created_at)))
CREATE INDEX jobs_expire_idx ON jobs USING btree (expire_at) WHERE ((status = 'pending'::text) AND (expire_at IS NOT NULL))
CREATE INDEX jobs_finished_idx ON jobs USING btree (finished_at, id) WHERE (finished_at IS NOT NULL)
CREATE INDEX jobs_fold_idx ON jobs USING btree (queue, fold_key, id DESC) WHERE (fold_key IS NOT NULL)
CREATE INDEX jobs_forked_from_idx ON jobs USING btree (forked_from) WHERE (forked_from IS NOT NULL)
CREATE INDEX jobs_held_idx ON jobs USING btree (held_by, held_key) WHERE ((held_by IS NOT NULL) AND (status = ANY (ARRAY['pending'::text, 'retry'::text, 'waiting'::text])))
CREATE INDEX jobs_key_idx ON jobs USING btree (key, id) WHERE (key IS NOT NULL)
CREATE INDEX jobs_key_open_idx ON jobs USING btree (queue, key, id) WHERE ((status = ANY (ARRAY['pending'::text, 'active'::text, 'retry'::text, 'waiting'::text, 'paused'::text])) AND (key IS NOT NULL))
CREATE INDEX jobs_key_ready_idx ON jobs USING btree (queue, key, priority DESC, run_at, id) WHERE ((status = ANY (ARRAY['pending'::text, 'retry'::text, 'waiting'::text])) AND (key IS NOT NULL))
CREATE INDEX jobs_key_running_idx ON jobs USING btree (queue, key) WHERE ((key IS NOT NULL) AND ((status = 'active'::text) OR ((status = 'cancelled'::text) AND (lock_token IS NOT NULL))))
CREATE INDEX jobs_parent_idx ON jobs USING btree (parent_id) WHERE (parent_id IS NOT NULL)
CREATE UNIQUE INDEX jobs_parent_step_idx ON jobs USING btree (parent_id, parent_step) WHERE (parent_step IS NOT NULL)
CREATE UNIQUE INDEX jobs_pkey ON jobs USING btree (id)
CREATE INDEX jobs_purge_after_idx ON jobs USING btree (purge_after, id) WHERE (purge_after IS NOT NULL)
CREATE INDEX jobs_queue_finished_idx ON jobs USING btree (queue, finished_at, id) WHERE (finished_at IS NOT NULL)
CREATE INDEX jobs_queue_status_idx ON jobs USING btree (queue, status, id)
CREATE INDEX jobs_root_idx ON jobs USING btree (root_id) WHERE (root_id IS NOT NULL)
CREATE INDEX jobs_stalled_idx ON jobs USING btree (locked_until) WHERE (status = 'active'::text)
CREATE INDEX jobs_tags_idx ON jobs USING gin (tags) WHERE (tags IS NOT NULL)
CREATE UNIQUE INDEX jobs_unique_key_idx ON jobs USING btree (queue, unique_key) WHERE ((unique_key IS NOT NULL) AND (status = ANY (ARRAY['pending'::text, 'active'::text, 'retry'::text, 'waiting'::text, 'paused'::text])))
CREATE UNIQUE INDEX key_settings_pkey ON key_settings USING btree (queue, key)
CREATE INDEX limiter_buckets_booked_idx ON limiter_buckets USING btree (booked)
CREATE UNIQUE INDEX limiter_buckets_pkey ON limiter_buckets USING btree (limiter, key)
CREATE UNIQUE INDEX limiters_pkey ON limiters USING btree (name)
CREATE UNIQUE INDEX maintenance_pkey ON maintenance USING btree (name)
CREATE UNIQUE INDEX queues_pkey ON queues USING btree (name)
CREATE UNIQUE INDEX retention_control_pkey ON retention_control USING btree (id)
CREATE INDEX retention_hold_jobs_job_idx ON retention_hold_jobs USING btree (job_id)
CREATE UNIQUE INDEX retention_hold_jobs_pkey ON retention_hold_jobs USING btree (hold_id, job_id)
CREATE INDEX retention_hold_jobs_tree_idx ON retention_hold_jobs USING btree (tree_id)
CREATE UNIQUE INDEX retention_holds_pkey ON retention_holds USING btree (id)
CREATE INDEX retention_holds_queue_idx ON retention_holds USING btree (queue) WHERE (queue IS NOT NULL)
CREATE UNIQUE INDEX run_history_pkey ON run_history USING btree (job_id, seq)
CREATE INDEX schedule_fires_job_idx ON schedule_fires USING btree (job_id)
CREATE UNIQUE INDEX schedule_fires_pkey ON schedule_fires USING btree (schedule_name, fire_at)
CREATE UNIQUE INDEX schedules_pkey ON schedules USING btree (name)
CREATE INDEX signals_job_idx ON signals USING btree (job_id, name, id)
CREATE UNIQUE INDEX signals_pkey ON signals USING btree (id)
CREATE INDEX signals_purge_after_idx ON signals USING btree (purge_after) WHERE (purge_after IS NOT NULL)
CREATE UNIQUE INDEX sweeps_pkey ON sweeps USING btree (id)
CREATE INDEX sweeps_started_idx ON sweeps USING btree (started_at DESC)
CREATE UNIQUE INDEX tidemark_migrations_pkey ON tidemark_migrations USING btree (version)
CREATE INDEX unique_locks_expires_idx ON unique_locks USING btree (expires_at)
CREATE INDEX unique_locks_job_idx ON unique_locks USING btree (job_id)
CREATE UNIQUE INDEX unique_locks_pkey ON unique_locks USING btree (scope)
CREATE INDEX workers_heartbeat_idx ON workers USING btree (heartbeat_at)
CREATE UNIQUE INDEX workers_pkey ON workers USING btree (id)
-- constraints
audit_log audit_log_pkey PRIMARY KEY (id)
audit_log audit_log_source_check CHECK ((source = ANY (ARRAY['api'::text, 'dashboard'::text, 'cli'::text])))
checkpoints checkpoints_pkey PRIMARY KEY (job_id, name)
job_dependencies job_dependencies_pkey PRIMARY KEY (job_id, dependency_id)
job_logs job_logs_level_check CHECK ((level = ANY (ARRAY['info'::text, 'warn'::text, 'error'::text])))
job_logs job_logs_pkey PRIMARY KEY (id)
job_tokens job_tokens_job_id_name_key UNIQUE (job_id, name)
job_tokens job_tokens_pkey PRIMARY KEY (id)
job_tokens job_tokens_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'completed'::text, 'cancelled'::text, 'expired'::text])))
jobs jobs_on_dependency_failure_check CHECK ((on_dependency_failure = ANY (ARRAY['fail'::text, 'cancel'::text, 'run'::text])))
jobs jobs_pkey PRIMARY KEY (id)
jobs jobs_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'active'::text, 'retry'::text, 'waiting'::text, 'paused'::text, 'completed'::text, 'failed'::text, 'cancelled'::text, 'expired'::text])))
key_settings key_settings_check CHECK (((concurrency IS NOT NULL) OR paused))
key_settings key_settings_concurrency_check CHECK ((concurrency > 0))
key_settings key_settings_pkey PRIMARY KEY (queue, key)
limiter_buckets limiter_buckets_limiter_fkey FOREIGN KEY (limiter) REFERENCES limiters(name) ON DELETE CASCADE
limiter_buckets limiter_buckets_pkey PRIMARY KEY (limiter, key)
limiters limiters_burst_check CHECK ((burst >= 0))
limiters limiters_limit_count_check CHECK ((limit_count > 0))
limiters limiters_period_seconds_check CHECK ((period_seconds > (0)::double precision))
limiters limiters_pkey PRIMARY KEY (name)
maintenance maintenance_pkey PRIMARY KEY (name)
queues queues_pkey PRIMARY KEY (name)
retention_control retention_control_id_check CHECK ((id = 1))
retention_control retention_control_pkey PRIMARY KEY (id)
retention_hold_jobs retention_hold_jobs_hold_id_fkey FOREIGN KEY (hold_id) REFERENCES retention_holds(id) ON DELETE CASCADE
retention_hold_jobs retention_hold_jobs_pkey PRIMARY KEY (hold_id, job_id)
retention_holds retention_holds_pkey PRIMARY KEY (id)
run_history run_history_pkey PRIMARY KEY (job_id, seq)
schedule_fires schedule_fires_pkey PRIMARY KEY (schedule_name, fire_at)
schedules schedules_pkey PRIMARY KEY (name)
signals signals_pkey PRIMARY KEY (id)
sweeps sweeps_pkey PRIMARY KEY (id)
tidemark_migrations tidemark_migrations_pkey PRIMARY KEY (version)
unique_locks unique_locks_pkey PRIMARY KEY (scope)
workers workers_pkey PRIMARY KEY (id)
-- functions
add_job(queue text, data jsonb, options jsonb)
add_job_canonical(value jsonb)
add_job_insert(r jsonb, delay double precision)
add_job_integer(value jsonb, field text, low bigint, high bigint)
add_job_known(value jsonb, field text, known text[])
add_job_length(value text)
add_job_refuse(field text, expected text, got jsonb)
add_job_resolve(job jsonb, at text)
add_job_retention(value jsonb, field text)
add_job_seconds(value jsonb, field text, above_zero boolean, high bigint)
add_job_text(value jsonb, field text, max integer)
add_job_write(r jsonb, OUT id bigint, OUT deduplicated boolean)
add_jobs(jobs jsonb)
claim_commit()
flow_candidates(flow_queues text[], lim integer)
grant_limiter_tokens(names text[], keys text[], totals integer[], held bigint[])
limiter_guard(period_seconds double precision)
limiter_spacing(period_seconds double precision, limit_count integer)
lock_limiter_buckets(names text[], keys text[])
log_attempt(log jsonb, entry jsonb)
purge_time(retention jsonb, status text, finished timestamp with time zone)
release_dependents()
take_limiter_tokens(requests jsonb)
wake_parent()

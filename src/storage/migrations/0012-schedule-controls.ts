/**
 * Operators' controls of a schedule: `paused` (a paused schedule fires nothing until resumed,
 * and does not catch up on the slots it missed) and `fired_at`, when it last fired, null until
 * it has. `last_fire_at` stays what it was: the slot the schedule has counted up to, which
 * starts at its creation (and again at a changed expression or a resume) so that it never
 * fires a slot from before.
 */
export const name = 'schedule-controls';

export const sql = /* sql */ `
alter table /*schema*/schedules add column paused boolean not null default false;
alter table /*schema*/schedules add column fired_at timestamptz;
update /*schema*/schedules s set fired_at = (select max(f.fire_at) from /*schema*/schedule_fires f where f.schedule_name = s.name);
`;

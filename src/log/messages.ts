/** Log texts that docs and tests rely on. Change them only on purpose. */
export const messages = {
  retentionEnabled: 'retention sweep enabled',
  retentionDisabled:
    'retention sweep is disabled; finished jobs and consumed signals accumulate until deleted by other means',
  retentionUnsupported:
    'storage has no retention capability; no retention or unique-lock sweep runs and finished rows accumulate',
  retentionDisableHint:
    'stop all deletion cluster-wide with tm.pauseRetention({ reason }); turn this node off with tm.worker({ sweep: false }); keep jobs added without their own policy with retention: false on the engine',
  retentionPaused: 'retention is paused cluster-wide; no sweep deletes anything until tm.resumeRetention()',
  retentionKeptByDefault:
    'retention: false on the engine; jobs added without their own policy are kept forever, but the sweep still deletes jobs that carry a window',
  retentionStopAllHint: 'stop all deletion cluster-wide with tm.pauseRetention({ reason })',
  retentionSweepOffHint:
    'other workers still sweep; stop all deletion cluster-wide with tm.pauseRetention({ reason })',
  retentionPolicyGaps: 'retention policy keeps some finished statuses forever',
  retentionPolicyGapsHint:
    'name every finished status: a window in seconds, or 0 to keep it forever on purpose',
  retentionKeepsAll: 'retention policy keeps every finished job forever',
} as const;

/**
 * Info records that the default logger prints although it shows only warnings otherwise:
 * what retention will delete is worth a line in every log.
 */
export const announcements: ReadonlySet<string> = new Set([messages.retentionEnabled]);

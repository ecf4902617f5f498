/** Log texts that docs and tests rely on. Change them only on purpose. */
export const messages = {
  retentionEnabled: 'retention sweep enabled',
  retentionDisabled:
    'retention sweep is disabled; finished jobs and consumed signals accumulate until deleted by other means',
  retentionUnsupported:
    'storage has no retention capability; no retention or unique-lock sweep runs and finished rows accumulate',
  retentionDisableHint:
    'disable with tm.worker({ sweep: false }) on this node; keep every job without its own policy with retention: false on the engine',
} as const;

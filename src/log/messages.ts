/** Log texts that docs and tests rely on. Change them only on purpose. */
export const messages = {
  retentionEnabled: 'retention sweep enabled',
  retentionDisabled:
    'retention sweep is disabled; finished jobs and consumed signals accumulate until deleted by other means',
  retentionUnsupported: 'storage has no retention capability; retention sweep not running',
  retentionDisableHint:
    'disable with tm.worker({ sweep: false }) on this node, or retention: false on the engine',
} as const;

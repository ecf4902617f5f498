/** The heading of a refusal's page, by its status (src/http/error-status.ts gives the status). */
export function refusalTitle(status: number): string {
  if (status === 400) return 'Bad request';
  if (status === 403) return 'Permission denied';
  if (status === 404) return 'Not found';
  if (status === 503) return 'Unavailable';
  return 'Refused';
}

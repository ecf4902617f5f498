/** A group of test files and the time they took on their last run, in ms. */
export interface FileGroup {
  files: string[];
  ms: number;
}

/** The name every group's file has, so the reporter tells a group from a test file. */
export const GROUP_FILE: RegExp;

/** Split `files` into at most `count` groups of about equal time (`timeOf` gives a file's last time). */
export function groupFiles(
  files: string[],
  count: number,
  timeOf: (file: string) => number | undefined,
): FileGroup[];

/** Write a group's file into `dir`; returns its path. */
export function writeGroup(
  dir: string,
  index: number,
  files: string[],
  repo: string,
  runnable: (file: string) => string,
): string;

import { InvalidOptionError } from '../errors.js';
import { checkKnownKeys, checkObject } from '../options/check.js';
import type { DashboardHandlerOptions, DashboardOptions } from '../options/dashboard-options.js';

export interface ResolvedHandlerOptions {
  token: string | undefined;
  readOnly: boolean;
  basePath: string;
}

export const DEFAULT_PORT = 4321;
const MIN_TOKEN_LENGTH = 16;

export function resolveHandlerOptions(input: unknown, extraKeys: string[] = []): ResolvedHandlerOptions {
  const options = checkObject(input ?? {}, 'options');
  checkKnownKeys(options, '', ['token', 'readOnly', 'basePath', ...extraKeys]);
  const { token, readOnly, basePath } = options as DashboardHandlerOptions;
  if (token !== undefined && (typeof token !== 'string' || token.length < MIN_TOKEN_LENGTH)) {
    throw new InvalidOptionError(
      'token',
      `a string of at least ${MIN_TOKEN_LENGTH} characters`,
      token ? '(hidden)' : token,
    );
  }
  if (readOnly !== undefined && typeof readOnly !== 'boolean') {
    throw new InvalidOptionError('readOnly', 'a boolean', readOnly);
  }
  if (
    basePath !== undefined &&
    (typeof basePath !== 'string' ||
      !/^(\/[A-Za-z0-9._~-]+)*$/.test(basePath) ||
      // A browser and every client resolve '.' and '..' away, so no request could ever match.
      /(^|\/)\.\.?(\/|$)/.test(basePath))
  ) {
    throw new InvalidOptionError(
      'basePath',
      "'' or a path like '/tidemark' (no trailing slash, no '.' or '..' segment)",
      basePath,
    );
  }
  return { token, readOnly: readOnly ?? false, basePath: basePath ?? '' };
}

export function resolveServerOptions(
  input: unknown,
): ResolvedHandlerOptions & { port: number; host: string } {
  const handler = resolveHandlerOptions(input, ['port', 'host']);
  const { port, host } = (input ?? {}) as DashboardOptions;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) {
    throw new InvalidOptionError('port', 'an integer from 0 to 65535', port);
  }
  if (host !== undefined && (typeof host !== 'string' || host.length === 0)) {
    throw new InvalidOptionError('host', 'a host name or address', host);
  }
  return { ...handler, port: port ?? DEFAULT_PORT, host: host ?? '127.0.0.1' };
}

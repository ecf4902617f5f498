import { InvalidOptionError } from '../errors.js';
import { custom, integer, object } from './fields.js';

/** The default cap of a callback token's payload, as JSON text. */
export const DEFAULT_TOKEN_PAYLOAD_BYTES = 65_536;

/** What the engine keeps of its `tokens` option. */
export interface TokenSettings {
  /** The first signs token URLs; any of them verifies one (key rotation). Empty: no URLs. */
  secrets: readonly string[];
  /** Where the token handler is mounted: URLs are `<baseUrl>/<id>?…`. Null: no URLs. */
  baseUrl: string | null;
  maxPayloadBytes: number;
}

const SECRETS_EXPECTED = 'an array of 1 to 10 strings of 32 to 1,000 characters';

/** `Tidemark.open({ tokens })`: the keys and place of callback-token URLs, and the payload cap. */
export const tokensField = object(
  {
    secrets: custom<readonly string[]>({
      expected: SECRETS_EXPECTED,
      docType: '`string[]`',
      description:
        'keys token URLs are signed with (HMAC-SHA256): the first signs, any verifies. To rotate, put the new key first and keep the old one until the links it signed have expired',
      jsonSchema: {
        type: 'array',
        minItems: 1,
        maxItems: 10,
        items: { type: 'string', minLength: 32, maxLength: 1000 },
      },
      check: (value, field) => {
        const ok =
          Array.isArray(value) &&
          value.length >= 1 &&
          value.length <= 10 &&
          value.every((s) => typeof s === 'string' && s.length >= 32 && s.length <= 1000);
        // The keys are secret: the error says what was wrong, never what they are.
        if (!ok) throw new InvalidOptionError(field, SECRETS_EXPECTED, '(not shown)');
        return Object.freeze([...(value as string[])]);
      },
    }),
    baseUrl: custom<string>({
      expected: 'an http or https URL without query or fragment',
      docType: '`string`',
      description:
        "where the token handler is served (`createTokenHandler`, or the dashboard's `<dashboard>/tokens`): `token.url()` is `<baseUrl>/<id>?…`",
      jsonSchema: { type: 'string', pattern: '^https?://' },
      check: (value, field) => {
        let url: URL | null = null;
        try {
          url = typeof value === 'string' && value.length <= 2_000 ? new URL(value) : null;
        } catch {
          url = null;
        }
        if (!url || !/^https?:$/.test(url.protocol) || url.search !== '' || url.hash !== '') {
          throw new InvalidOptionError(field, 'an http or https URL without query or fragment', value);
        }
        return String(value).replace(/\/+$/, '');
      },
    }),
    maxPayloadBytes: integer(1, 1_048_576, {
      default: DEFAULT_TOKEN_PAYLOAD_BYTES,
      description: "the largest payload a token takes, as JSON text (and the token handler's largest body)",
    }),
  },
  {
    docType: '`{ secrets?: string[]; baseUrl?: string; maxPayloadBytes?: number }`',
    docDefault: 'no token URLs; payloads up to 64 KiB',
    description:
      'callback tokens (`ctx.createToken`, see [waiting.md](waiting.md#callback-tokens)): the keys and place of their signed URLs, and the payload cap',
  },
);

/** The engine's token settings from its checked option. */
export function resolveTokens(
  option: { secrets?: readonly string[]; baseUrl?: string; maxPayloadBytes?: number } | undefined,
): TokenSettings {
  return {
    secrets: option?.secrets ?? [],
    baseUrl: option?.baseUrl ?? null,
    maxPayloadBytes: option?.maxPayloadBytes ?? DEFAULT_TOKEN_PAYLOAD_BYTES,
  };
}

import { TidemarkError } from './base.js';

/** No callback token has this id: it never existed, its job was deleted, or it expired and was swept. */
export class TokenNotFoundError extends TidemarkError {
  readonly tokenId: string;
  constructor(tokenId: string) {
    super('TOKEN_NOT_FOUND', `no callback token has id ${tokenId}`, { tokenId });
    this.tokenId = tokenId;
  }
}

/** Why a token can no longer be completed. */
export type TokenClosedReason = 'expired' | 'cancelled' | 'job-finished';

/**
 * The callback token can no longer be completed: it expired (its wait timed out or will), was
 * cancelled with `tm.cancelToken`, or its job finished (completed, failed or cancelled).
 * Nothing was written.
 */
export class TokenClosedError extends TidemarkError {
  readonly tokenId: string;
  readonly reason: TokenClosedReason;
  constructor(tokenId: string, reason: TokenClosedReason) {
    super('TOKEN_CLOSED', `callback token ${tokenId} is closed: ${reason}`, { tokenId, reason });
    this.tokenId = tokenId;
    this.reason = reason;
  }
}

/**
 * A token's payload was refused, nothing written: larger than `tokens.maxPayloadBytes`, or not
 * what the token's schema asks for. `field` names the part refused (`data`, `data.amount`).
 */
export class TokenPayloadError extends TidemarkError {
  readonly tokenId: string;
  readonly field: string;
  constructor(tokenId: string, field: string, problem: string) {
    super('TOKEN_PAYLOAD', `callback token ${tokenId} refused its payload: '${field}' ${problem}`, {
      tokenId,
      field,
      problem,
    });
    this.tokenId = tokenId;
    this.field = field;
  }
}

/** `token.url()` without the engine option it needs (`tokens.secrets` or `tokens.baseUrl`), named in `option`. */
export class TokensNotConfiguredError extends TidemarkError {
  readonly option: string;
  constructor(option: string) {
    super(
      'TOKENS_NOT_CONFIGURED',
      `a callback token URL needs the engine option '${option}' (Tidemark.open({ tokens: { secrets, baseUrl } })); the token's id still works with tm.completeToken`,
      { option },
    );
    this.option = option;
  }
}

import type { ErrorCode, RowProblem } from '../../api/schemas.js';

/** A failure the client is told about, with its status and code (the error table of docs/api.md). */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
    /** Headers the answer must carry, e.g. Retry-After on 429. */
    readonly headers?: Record<string, string>,
    /** What went wrong underneath, for the operator's log only (a 5xx logs it; the caller never sees it). */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'AppError';
  }
}

export const invalid = (field: string, message: string) => new AppError(400, 'invalid_request', message, field);
export const campaignNotFound = () => new AppError(404, 'campaign_not_found', 'No campaign has this id', 'id');
export const participantNotFound = () =>
  new AppError(404, 'participant_not_found', 'No participant of this campaign has this email', 'email');

/** A file refused for some of its rows: 400 with each row's line, field and reason (the first 100). */
export class RowsRefused extends AppError {
  constructor(
    message: string,
    readonly rows: RowProblem[],
  ) {
    super(400, 'invalid_request', message, 'file');
  }
}

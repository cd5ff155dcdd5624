/**
 * What every owner route (access 'secret') says of itself in the OpenAPI document: how it is called and
 * the errors its caller may get from that alone. One place, so that no route file leaves out the
 * dashboard session (the dashboard calls these very routes) or the 403 of a role that may not, or of a
 * session's change sent without its CSRF token (./access.ts, ./permissions.ts).
 */
import { Type } from '@sinclair/typebox';
import { ApiErrorBody } from '../../api/schemas.js';

/** A secret key, or a dashboard session (whose changes also need the x-csrf-token header). */
const ownerSecurity: Record<string, string[]>[] = [{ bearerAuth: [] }, { sessionCookie: [] }];

/** 400 bad input, 401 no or an unknown key or session, 403 a role that may not (or a change without the CSRF token). */
export const accessErrors = { 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody };

/** ...and, for routes about a campaign or another object: 404 not found (or of the other mode), 409 a conflict with its state. */
export const ownerErrors = { ...accessErrors, 404: ApiErrorBody, 409: ApiErrorBody };

/** The tag and security of an owner route. */
export const ownerRoute = (tag: string) => ({ tags: [tag], security: ownerSecurity });


/**
 * The 200 answer of a CSV export: a stream of text/csv (the route says `produces`), which Fastify sends
 * as it is, never through a serializer; declared so that the document lists it beside the errors.
 */
export const CsvStream = Type.Unknown({ description: 'The CSV (text/csv, UTF-8, a header row first), streamed' });

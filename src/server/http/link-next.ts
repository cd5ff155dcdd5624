import type { FastifyReply, FastifyRequest } from 'fastify';

/** Puts the next page's address in a `Link` header (the body stays a bare array, as the interface says). */
export function linkNext(request: FastifyRequest, reply: FastifyReply, next: string | undefined): void {
  if (!next) return;
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  url.searchParams.delete('page');
  url.searchParams.set('cursor', next);
  reply.header('link', `<${url.href}>; rel="next"`);
}

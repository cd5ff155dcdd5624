/** Where a list starts: an offset (page numbers) or after a (createdOn, id) key (cursors). */
export type ListStart = { offset: number } | { after: { createdOn: number; id: number } };

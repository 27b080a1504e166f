/** The signed-in account's movements: newest-first pages and one movement, as their stored documents. */

import { ApiError } from '../errors.js';
import { findMovementDocument, listMovements, type MovementQuery } from '../store/movements.js';
import type { DocumentPage, PageSource } from '../store/pages.js';

export type { Keyset } from '../store/pages.js';

/** A page of the account's movements, newest first, ties broken by id descending. */
export function movementsPage(store: PageSource, query: MovementQuery): Promise<DocumentPage> {
  return listMovements(store, query);
}

/** The document of one of the account's movements; another account's is not found, like a missing one. */
export async function movementOf(store: PageSource, account: string, id: string): Promise<string> {
  const document = await findMovementDocument(store, account, id);
  if (document === null) throw new ApiError('movement_not_found');
  return document;
}

/** Bodies already serialized: the server sends their JSON text as it is. */
import type { components, SerializedJson } from '@gateway/generated';

type Schemas = components['schemas'];

/**
 * A body already serialized (the server sends `json` as it is): stored documents, and catalogue answers
 * serialized once per catalogue snapshot.
 */
export class JsonText<T> implements SerializedJson<T> {
  constructor(readonly json: string) {}
}

/**
 * A list answer around stored item documents (store/documents.ts), in the envelope of every list: the
 * same text, key for key, that serializing the list object would give.
 */
export function listOfDocuments<List extends Schemas['MovementList'] | Schemas['TradeList'] | Schemas['PlatformList']>(
  pageInfo: List['page_info'],
  documents: readonly string[],
): JsonText<List> {
  return new JsonText(`{"type":"list","page_info":${JSON.stringify(pageInfo)},"items":[${documents.join(',')}]}`);
}

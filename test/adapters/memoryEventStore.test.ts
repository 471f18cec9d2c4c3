import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { eventStoreContract } from '../contracts/eventStore.contract';

eventStoreContract('memory', async () => {
  const store = createMemoryEventStore();
  return { store, cleanup: () => store.close() };
});

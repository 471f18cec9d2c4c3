/**
 * The protocol definitions the EventStoreDB client ships (protoc output under @eventstore/db-client/generated), loaded
 * from the client's own folder. The test server must build its messages from the very classes the client decodes
 * with, and the generated service definitions check `instanceof` on every message they serialize.
 *
 * They are CommonJS modules that attach their exports at run time, which ESM named imports cannot see, hence the
 * require; their .d.ts files give the types.
 */
import { createRequire } from 'node:module';
import type * as CodeModule from '@eventstore/db-client/generated/code_pb';
import type * as GossipGrpcModule from '@eventstore/db-client/generated/gossip_grpc_pb';
import type * as GossipModule from '@eventstore/db-client/generated/gossip_pb';
import type * as ServerFeaturesGrpcModule from '@eventstore/db-client/generated/serverfeatures_grpc_pb';
import type * as ServerFeaturesModule from '@eventstore/db-client/generated/serverfeatures_pb';
import type * as SharedModule from '@eventstore/db-client/generated/shared_pb';
import type * as StatusModule from '@eventstore/db-client/generated/status_pb';
import type * as StreamsGrpcModule from '@eventstore/db-client/generated/streams_grpc_pb';
import type * as StreamsModule from '@eventstore/db-client/generated/streams_pb';
import type { Any as AnyMessage } from 'google-protobuf/google/protobuf/any_pb';
import type { Empty as EmptyMessage } from 'google-protobuf/google/protobuf/empty_pb';

// Resolving from the client's entry point keeps this working wherever npm puts google-protobuf.
const requireFromClient = createRequire(import.meta.resolve('@eventstore/db-client'));
const generated = <T>(name: string): T => requireFromClient(`../generated/${name}.js`) as T;

export const streams = generated<typeof StreamsModule>('streams_pb');
export const streamsGrpc = generated<typeof StreamsGrpcModule>('streams_grpc_pb');
export const shared = generated<typeof SharedModule>('shared_pb');
export const status = generated<typeof StatusModule>('status_pb');
export const code = generated<typeof CodeModule>('code_pb');
export const serverFeatures = generated<typeof ServerFeaturesModule>('serverfeatures_pb');
export const serverFeaturesGrpc = generated<typeof ServerFeaturesGrpcModule>('serverfeatures_grpc_pb');
export const gossip = generated<typeof GossipModule>('gossip_pb');
export const gossipGrpc = generated<typeof GossipGrpcModule>('gossip_grpc_pb');

export const googleAny = (requireFromClient('google-protobuf/google/protobuf/any_pb.js') as { Any: typeof AnyMessage })
  .Any;
export const googleEmpty = (
  requireFromClient('google-protobuf/google/protobuf/empty_pb.js') as { Empty: typeof EmptyMessage }
).Empty;

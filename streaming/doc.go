// Package streaming runs rfstream's stages as NATS subscribers linked by
// subjects, so a recogniser can live in one process around an embedded
// server or be spread over a NATS cluster. docs/streaming.md is the
// protocol a client in any language follows.
//
// Audio goes through three stages, images through one, each a type in a
// file of its own: the frontend (stage_frontend.go; voices.go keeps named
// voices' sessions and voicewriter.go writes their files), the features
// stage (stage_features.go) and the decoder (stage_decoder.go); the tagger
// (stage_tagger.go, with tagsjson.go for its replies). pipeline.go holds
// what they share (Pipeline, Start, core, batching, Close, the idle
// sweep), and reorder.go the window that puts a stream's messages back in
// sequence. subjects.go names the subjects and headers, codec.go encodes payloads,
// durable.go keeps a pipeline in JetStream, micro.go makes every stage a
// NATS micro service (discovery on $SRV.PING, INFO and STATS), client.go
// is the Go client (StreamAudio, TagImages, ForgetVoice), server.go an
// embedded NATS server and auth.go who may use it (operators, clients
// confined to their own streams, the stages' identity). Package streaming/web, a client of these subjects, serves the
// browser page.
package streaming

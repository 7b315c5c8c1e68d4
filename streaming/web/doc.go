// Package web serves the browser page of a pipeline: the microphone panel
// streams PCM over a WebSocket that this package republishes on the
// pipeline's NATS subjects, and the image panel posts files that it
// publishes as images. The page and its scripts are embedded, so the
// binary serves everything the browser loads. It is a client of package
// streaming, like the other programs that publish on a pipeline's
// subjects, and so lives under it.
package web

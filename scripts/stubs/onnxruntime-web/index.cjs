// onnxruntime-web is the browser's ONNX runtime; UMO runs transformers.js in Node only, where it
// uses onnxruntime-node (see the root package.json's overrides).
module.exports = {}

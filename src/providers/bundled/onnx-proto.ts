import protobuf from "protobufjs";

/**
 * The part of ONNX's protobuf schema (onnx/onnx.proto, IR version 8) needed to write a model:
 * field numbers as upstream. Only encoding is ever done with it; the fields that carry the graph
 * and its weights are written by hand (encodeModel).
 */
const SCHEMA = {
  nested: {
    onnx: {
      nested: {
        AttributeProto: {
          fields: {
            name: { type: "string", id: 1 },
            f: { type: "float", id: 2 },
            i: { type: "int64", id: 3 },
            s: { type: "bytes", id: 4 },
            t: { type: "TensorProto", id: 5 },
            floats: { rule: "repeated", type: "float", id: 7 },
            ints: { rule: "repeated", type: "int64", id: 8 },
            type: { type: "int32", id: 20 },
          },
        },
        ValueInfoProto: { fields: { name: { type: "string", id: 1 }, type: { type: "TypeProto", id: 2 } } },
        NodeProto: {
          fields: {
            input: { rule: "repeated", type: "string", id: 1 },
            output: { rule: "repeated", type: "string", id: 2 },
            name: { type: "string", id: 3 },
            opType: { type: "string", id: 4 },
            attribute: { rule: "repeated", type: "AttributeProto", id: 5 },
          },
        },
        ModelProto: {
          fields: {
            irVersion: { type: "int64", id: 1 },
            producerName: { type: "string", id: 2 },
            opsetImport: { rule: "repeated", type: "OperatorSetIdProto", id: 8 },
          },
        },
        GraphProto: {
          fields: {
            node: { rule: "repeated", type: "NodeProto", id: 1 },
            name: { type: "string", id: 2 },
            input: { rule: "repeated", type: "ValueInfoProto", id: 11 },
            output: { rule: "repeated", type: "ValueInfoProto", id: 12 },
          },
        },
        TensorProto: {
          fields: {
            dims: { rule: "repeated", type: "int64", id: 1 },
            dataType: { type: "int32", id: 2 },
            name: { type: "string", id: 8 },
            // An attribute's tensor (small) is encoded whole; the initializers' data by hand.
            rawData: { type: "bytes", id: 9 },
          },
        },
        TensorShapeProto: {
          fields: { dim: { rule: "repeated", type: "Dimension", id: 1 } },
          nested: {
            Dimension: { fields: { dimValue: { type: "int64", id: 1 }, dimParam: { type: "string", id: 2 } } },
          },
        },
        TypeProto: {
          fields: { tensorType: { type: "Tensor", id: 1 } },
          nested: {
            Tensor: { fields: { elemType: { type: "int32", id: 1 }, shape: { type: "TensorShapeProto", id: 2 } } },
          },
        },
        OperatorSetIdProto: { fields: { domain: { type: "string", id: 1 }, version: { type: "int64", id: 2 } } },
      },
    },
  },
};

/** ONNX element types (TensorProto.DataType). */
export const ONNX_TYPE = { float: 1, int64: 7, bool: 9 } as const;
export type OnnxType = (typeof ONNX_TYPE)[keyof typeof ONNX_TYPE];

/** ONNX attribute types (AttributeProto.AttributeType). */
const ATTRIBUTE_TYPE = { float: 1, int: 2, string: 3, tensor: 4, ints: 7 } as const;

export interface OnnxTensor {
  name: string;
  dims: number[];
  dataType: OnnxType;
  rawData: Uint8Array;
}

export type AttributeValue = number | number[] | string | OnnxTensor | { float: number };

export interface OnnxNode {
  opType: string;
  inputs: string[];
  outputs: string[];
  attributes?: Record<string, AttributeValue>;
}

export interface OnnxValue {
  name: string;
  type: OnnxType;
  /** A number, or a name for a dimension that varies. */
  shape: (number | string)[];
}

export interface OnnxGraph {
  nodes: OnnxNode[];
  initializers: OnnxTensor[];
  inputs: OnnxValue[];
  outputs: OnnxValue[];
  opset: number;
}

let root: protobuf.Root | undefined;
const type = (name: string) => (root ??= protobuf.Root.fromJSON(SCHEMA)).lookupType(`onnx.${name}`);

/** Field numbers of the length-delimited fields written by hand below. */
const MODEL_GRAPH = 7;
const GRAPH_INITIALIZER = 5;
const TENSOR_RAW_DATA = 9;

/**
 * The graph as an ONNX model file, in pieces to write one after the other (or join). The weights
 * are not copied: a tensor's raw data is its piece. Protobuf lets a message's fields come in any
 * order, so each initializer is written after the rest of the graph, with its raw data last.
 */
export function encodeModel(graph: OnnxGraph): Uint8Array[] {
  const tensors = graph.initializers.map((tensor) => {
    const head = type("TensorProto").encode({ dims: tensor.dims, dataType: tensor.dataType, name: tensor.name }).finish();
    const rawTag = lengthTag(TENSOR_RAW_DATA, tensor.rawData.length);
    const length = head.length + rawTag.length + tensor.rawData.length;
    return [lengthTag(GRAPH_INITIALIZER, length), head, rawTag, tensor.rawData];
  });
  const graphHead = type("GraphProto")
    .encode({
      name: "graph",
      node: graph.nodes.map((node, i) => ({
        name: `n${i}`,
        opType: node.opType,
        input: node.inputs,
        output: node.outputs,
        attribute: Object.entries(node.attributes ?? {}).map(([name, value]) => attribute(name, value)),
      })),
      input: graph.inputs.map(valueInfo),
      output: graph.outputs.map(valueInfo),
    })
    .finish();
  const graphLength = graphHead.length + tensors.flat().reduce((sum, piece) => sum + piece.length, 0);
  const modelHead = type("ModelProto")
    .encode({ irVersion: 8, producerName: "mnemo", opsetImport: [{ domain: "", version: graph.opset }] })
    .finish();
  return [modelHead, lengthTag(MODEL_GRAPH, graphLength), graphHead, ...tensors.flat()];
}

/** The tag and length of a length-delimited field (wire type 2). */
function lengthTag(field: number, length: number): Uint8Array {
  return protobuf.Writer.create()
    .uint32((field << 3) | 2)
    .uint32(length)
    .finish();
}

function attribute(name: string, value: AttributeValue): object {
  if (typeof value === "number") return { name, type: ATTRIBUTE_TYPE.int, i: value };
  if (typeof value === "string") return { name, type: ATTRIBUTE_TYPE.string, s: new TextEncoder().encode(value) };
  if (Array.isArray(value)) return { name, type: ATTRIBUTE_TYPE.ints, ints: value };
  if ("float" in value) return { name, type: ATTRIBUTE_TYPE.float, f: value.float };
  return { name, type: ATTRIBUTE_TYPE.tensor, t: value };
}

function valueInfo(value: OnnxValue): object {
  const dim = value.shape.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d }));
  return { name: value.name, type: { tensorType: { elemType: value.type, shape: { dim } } } };
}

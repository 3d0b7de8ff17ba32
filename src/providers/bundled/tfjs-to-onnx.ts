import {
  ONNX_TYPE,
  type AttributeValue,
  type OnnxGraph,
  type OnnxNode,
  type OnnxTensor,
  type OnnxType,
  type OnnxValue,
} from "./onnx-proto.js";

/**
 * A TensorFlow.js graph model (model.json + its weight shards) as an ONNX graph, op by op, for the
 * ops the Universal Sentence Encoder lite uses. Every integer tensor becomes int64, which ONNX
 * wants for shapes and indices. An op or a form this does not know throws: a model it cannot
 * convert is refused whole, never half converted.
 */

export interface TfjsModelJson {
  modelTopology: { node: TfNode[] };
  weightsManifest: { paths: string[]; weights: TfWeight[] }[];
}

interface TfNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, TfAttr>;
}

interface TfAttr {
  shape?: { dim?: { size: string | number }[] };
  /** Bytes: base64, or character codes. */
  s?: string | number[];
  i?: string | number;
  b?: boolean;
  type?: number | string;
  list?: { i?: (string | number)[] };
}

interface TfWeight {
  name: string;
  shape: number[];
  dtype: "float32" | "int32";
  quantization?: unknown;
}

interface Constant {
  dims: number[];
  /** float32 weights as they are; int32 ones widened to int64. */
  data: Float32Array | BigInt64Array;
}

/** TensorFlow's DataType enum → ONNX, with every integer widened to int64. */
const TF_TYPE: Record<string, OnnxType> = { "1": ONNX_TYPE.float, "3": ONNX_TYPE.int64, "9": ONNX_TYPE.int64, "10": ONNX_TYPE.bool };
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

const OPSET = 13;

/** TensorFlow ops that are one ONNX op with the same inputs (BiasAdd: NHWC, so a broadcast Add). */
const DIRECT: Record<string, string> = {
  Add: "Add",
  Sub: "Sub",
  Mul: "Mul",
  RealDiv: "Div",
  Maximum: "Max",
  Less: "Less",
  Greater: "Greater",
  LogicalNot: "Not",
  Sin: "Sin",
  Cos: "Cos",
  Tanh: "Tanh",
  Relu: "Relu",
  BiasAdd: "Add",
  Shape: "Shape",
  GatherNd: "GatherND",
  Range: "Range",
  Reshape: "Reshape",
};

export function tfjsToOnnx(model: TfjsModelJson, weights: Uint8Array, output: string): OnnxGraph {
  return new Converter(model, weights).convert(output);
}

class Converter {
  private readonly constants = new Map<string, Constant>();
  private readonly producers = new Map<string, TfNode>();
  private readonly nodes: OnnxNode[] = [];
  private readonly initializers: OnnxTensor[] = [];
  private fresh = 0;

  constructor(
    private readonly model: TfjsModelJson,
    weights: Uint8Array,
  ) {
    let offset = 0;
    for (const weight of model.weightsManifest.flatMap((group) => group.weights)) {
      if (weight.quantization) throw new Error(`quantized weight ${weight.name} is not supported`);
      const count = weight.shape.reduce((a, b) => a * b, 1);
      const view = weights.subarray(offset, offset + count * 4);
      offset += count * 4;
      // A typed array needs its start aligned to 4 bytes: a view when it is, else a copy.
      const bytes = view.byteOffset % 4 === 0 ? view : new Uint8Array(view);
      const data =
        weight.dtype === "float32"
          ? new Float32Array(bytes.buffer, bytes.byteOffset, count)
          : BigInt64Array.from(new Int32Array(bytes.buffer, bytes.byteOffset, count), (v) => BigInt(v));
      this.constants.set(weight.name, { dims: weight.shape, data });
    }
    for (const node of model.modelTopology.node) this.producers.set(node.name, node);
  }

  convert(output: string): OnnxGraph {
    const inputs: OnnxValue[] = [];
    for (const node of this.model.modelTopology.node) {
      if (node.op === "Const") this.constant(node.name);
      else if (node.op === "Placeholder") inputs.push(this.placeholder(node));
      else this.op(node);
    }
    return {
      nodes: this.nodes,
      initializers: this.initializers,
      inputs,
      outputs: [{ name: output, type: ONNX_TYPE.float, shape: ["batch", "dims"] }],
      opset: OPSET,
    };
  }

  /** A graph input; a dimension of unknown size (-1) gets a name. */
  private placeholder(node: TfNode): OnnxValue {
    const dims = node.attr?.["shape"]?.shape?.dim ?? [];
    return {
      name: node.name,
      type: this.dtype(node, "dtype"),
      shape: dims.map((dim, i) => (Number(dim.size) < 0 ? `${node.name}_${i}` : Number(dim.size))),
    };
  }

  private op(node: TfNode): void {
    const inputs = (node.input ?? []).filter((ref) => !ref.startsWith("^")).map(valueName);
    const [x = "", y = ""] = inputs;
    const out = node.name;
    const emit = (opType: string, ins: string[], attributes?: Record<string, AttributeValue>, outs = [out]) =>
      this.nodes.push({ opType, inputs: ins, outputs: outs, ...(attributes ? { attributes } : {}) });
    if ((stringAttr(node, "data_format") ?? "NHWC") !== "NHWC") throw new Error(`cannot convert ${node.name}: not NHWC`);
    const direct = DIRECT[node.op];
    if (direct) return void emit(direct, inputs);
    switch (node.op) {
      case "Square":
        return void emit("Mul", [x, x]);
      case "Rsqrt":
        return void emit("Reciprocal", [this.temp("Sqrt", [x])]);
      case "Softmax":
        return void emit("Softmax", [x], { axis: -1 });
      case "Cast":
        return void emit("Cast", [x], { to: this.dtype(node, "DstT") });
      case "Where":
        if (inputs.length !== 1) break;
        return void emit("Transpose", [this.temp("NonZero", [x])], { perm: [1, 0] });
      case "GatherV2": {
        const [axis] = this.ints(inputs[2]!);
        if (axis === undefined || Number(node.attr?.["batch_dims"]?.i ?? 0) !== 0) break;
        return void emit("Gather", [x, y], { axis });
      }
      case "Max":
      case "Mean":
      case "Prod":
        return void emit(`Reduce${node.op}`, [x], { axes: this.ints(y), keepdims: keepDims(node) });
      case "Sum":
        return void emit("ReduceSum", [x, this.int64Const(this.ints(y))], { keepdims: keepDims(node) });
      case "ConcatV2":
        return void emit("Concat", inputs.slice(0, -1), { axis: this.ints(inputs[inputs.length - 1]!)[0]! });
      case "Pack": {
        const axis = Number(node.attr?.["axis"]?.i ?? 0);
        const axes = this.int64Const([axis]);
        return void emit(
          "Concat",
          inputs.map((input) => this.temp("Unsqueeze", [input, axes])),
          { axis },
        );
      }
      case "ExpandDims":
        return void emit("Unsqueeze", [x, this.int64Const(this.ints(y))]);
      case "Squeeze":
        return void emit("Squeeze", [x, this.int64Const(listInts(node, "squeeze_dims"))]);
      case "Transpose":
        return void emit("Transpose", [x], { perm: this.ints(y) });
      case "SplitV": {
        const count = Number(node.attr?.["num_split"]?.i);
        const outs = Array.from({ length: count }, (_, i) => (i === 0 ? out : `${out}:${i}`));
        return void emit("Split", [x, this.int64Const(this.ints(y))], { axis: this.ints(inputs[2]!)[0]! }, outs);
      }
      case "MatMul":
        if (node.attr?.["transpose_a"]?.b || node.attr?.["transpose_b"]?.b) break;
        return void emit("MatMul", [x, y]);
      case "BatchMatMul":
      case "BatchMatMulV2":
        return void emit("MatMul", [this.adjoint(x, node.attr?.["adj_x"]?.b), this.adjoint(y, node.attr?.["adj_y"]?.b)]);
      case "Conv2D":
        return void emit("MatMul", [x, this.pointwiseKernel(node, y)]);
      case "StridedSlice":
        return void this.stridedSlice(node, inputs);
      case "Slice": {
        const begin = this.ints(y);
        const size = this.ints(inputs[2]!);
        const ends = begin.map((b, i) => (size[i] === -1 ? INT64_MAX : BigInt(b + size[i]!)));
        return void emit("Slice", [x, this.int64Const(begin), this.int64Const(ends), this.int64Const(begin.map((_, i) => i))]);
      }
      case "SparseToDense": {
        // (indices, output_shape, values, default): the default everywhere, the values scattered in.
        const [indices, shape, values, fill] = inputs as [string, string, string, string];
        return void emit("ScatterND", [this.temp("Expand", [fill, shape]), indices, values]);
      }
      case "ScatterNd": {
        // (indices, updates, shape) onto zeros; the indices here never repeat, so no sums are lost.
        const zeros = this.temp("ConstantOfShape", [inputs[2]!], { value: floatTensor(`${out}/zero`, 0) });
        return void emit("ScatterND", [zeros, x, y]);
      }
    }
    throw new Error(`cannot convert ${node.op} (${node.name})`);
  }

  /** TensorFlow's StridedSlice with begin/end/shrink masks (no ellipsis or new axes) as Slice, then Squeeze. */
  private stridedSlice(node: TfNode, inputs: string[]): void {
    const mask = (name: string) => Number(node.attr?.[name]?.i ?? 0);
    if (mask("ellipsis_mask") || mask("new_axis_mask")) throw new Error(`cannot convert ${node.name}: ellipsis or new-axis mask`);
    const begin = this.ints(inputs[1]!);
    const end = this.ints(inputs[2]!);
    const strides = this.ints(inputs[3]!);
    const starts: bigint[] = [];
    const ends: bigint[] = [];
    const shrink: number[] = [];
    begin.forEach((b, d) => {
      const bit = 1 << d;
      const forward = strides[d]! > 0;
      if (mask("shrink_axis_mask") & bit) {
        starts.push(BigInt(b));
        ends.push(b === -1 ? INT64_MAX : BigInt(b + 1));
        shrink.push(d);
        return;
      }
      starts.push(mask("begin_mask") & bit ? (forward ? 0n : INT64_MAX) : BigInt(b));
      ends.push(mask("end_mask") & bit ? (forward ? INT64_MAX : INT64_MIN) : BigInt(end[d]!));
    });
    const axes = begin.map((_, d) => d);
    const sliceInputs = [
      valueName(node.input![0]!),
      this.int64Const(starts),
      this.int64Const(ends),
      this.int64Const(axes),
      this.int64Const(strides),
    ];
    if (shrink.length === 0) {
      this.nodes.push({ opType: "Slice", inputs: sliceInputs, outputs: [node.name] });
      return;
    }
    this.nodes.push({ opType: "Squeeze", inputs: [this.temp("Slice", sliceInputs), this.int64Const(shrink)], outputs: [node.name] });
  }

  /** `value` with its last two dimensions swapped when `adjoint`. */
  private adjoint(value: string, adjoint: boolean | undefined): string {
    if (!adjoint) return value;
    const rank = this.rankOf(value);
    const perm = Array.from({ length: rank }, (_, i) => i);
    [perm[rank - 2], perm[rank - 1]] = [perm[rank - 1]!, perm[rank - 2]!];
    return this.temp("Transpose", [value], { perm });
  }

  private rankOf(value: string): number {
    const producer = this.producers.get(value.split(":")[0]!);
    if (producer?.op === "Transpose") return this.ints(valueName(producer.input![1]!)).length;
    throw new Error(`cannot tell the rank of ${value}`);
  }

  /** A 1×1, stride-1 Conv2D (NHWC) is a MatMul over the channels: its kernel as a [in, out] matrix. */
  private pointwiseKernel(node: TfNode, kernel: string): string {
    const { dims, data } = this.constantValue(kernel);
    const ones = (name: string) => (node.attr?.[name]?.list?.i ?? [1, 1, 1, 1]).every((v) => Number(v) === 1);
    if (dims[0] !== 1 || dims[1] !== 1 || !ones("strides") || !ones("dilations"))
      throw new Error(`cannot convert ${node.name}: not a 1×1 convolution`);
    const name = `${kernel}/matrix`;
    this.initializers.push(tensor(name, [dims[2]!, dims[3]!], data));
    return name;
  }

  private constant(name: string): void {
    const { dims, data } = this.constantValue(name);
    this.initializers.push(tensor(name, dims, data));
  }

  private constantValue(name: string): Constant {
    const value = this.constants.get(name.split(":")[0]!);
    if (!value) throw new Error(`${name} is not a constant`);
    return value;
  }

  /** A constant integer tensor's values (axes, permutations, slice bounds). */
  private ints(name: string): number[] {
    const { data } = this.constantValue(name);
    if (!(data instanceof BigInt64Array)) throw new Error(`${name} is not an integer constant`);
    return Array.from(data, Number);
  }

  private int64Const(values: (number | bigint)[]): string {
    const name = `const_${this.fresh++}`;
    this.initializers.push(
      tensor(
        name,
        [values.length],
        BigInt64Array.from(values, (v) => BigInt(v)),
      ),
    );
    return name;
  }

  private temp(opType: string, inputs: string[], attributes?: Record<string, AttributeValue>): string {
    const name = `${opType}_${this.fresh++}`;
    this.nodes.push({ opType, inputs, outputs: [name], ...(attributes ? { attributes } : {}) });
    return name;
  }

  private dtype(node: TfNode, attr: string): OnnxType {
    const type = TF_TYPE[String(node.attr?.[attr]?.type)];
    if (!type) throw new Error(`cannot convert ${node.name}: type ${JSON.stringify(node.attr?.[attr])}`);
    return type;
  }
}

/** "node:0" and "node" are the same value; "node:1" is the node's second output. */
function valueName(ref: string): string {
  return ref.replace(/:0$/, "");
}

function stringAttr(node: TfNode, attr: string): string | undefined {
  const value = node.attr?.[attr]?.s;
  if (value === undefined) return undefined;
  return Array.isArray(value) ? String.fromCharCode(...value) : Buffer.from(value, "base64").toString();
}

function keepDims(node: TfNode): number {
  return node.attr?.["keep_dims"]?.b ? 1 : 0;
}

function listInts(node: TfNode, attr: string): number[] {
  return (node.attr?.[attr]?.list?.i ?? []).map(Number);
}

function tensor(name: string, dims: number[], data: Float32Array | BigInt64Array): OnnxTensor {
  const dataType = data instanceof Float32Array ? ONNX_TYPE.float : ONNX_TYPE.int64;
  return { name, dims, dataType, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

function floatTensor(name: string, value: number): OnnxTensor {
  return tensor(name, [1], Float32Array.of(value));
}

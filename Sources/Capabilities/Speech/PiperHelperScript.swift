/// The program a ``PiperHelperPool`` helper runs: `python -I -c SOURCE THREADS`, with the Python
/// that has `piper-tts` installed (`REPARTO_PIPER_PYTHON`).
///
/// It serves one line after another on standard input and output until its input ends, keeping the
/// last four voices it loaded (an ONNX session each, with `THREADS` intra-op threads). Standard
/// output is moved off descriptor 1 first, so nothing a library prints can corrupt an answer.
/// Frames are little-endian:
///
/// - request: `u32 model path bytes, u32 config path bytes, u32 text bytes, i32 speaker (-1: the
///   model's default), f64 length scale`, then the model path, the config path and the text (UTF-8);
/// - response: `u32 status` (0 ok, 1 the voice cannot be loaded, 2 synthesis failed, 3 Piper
///   cannot be imported), `u32 sample rate`, `u32 payload bytes`, then 16-bit mono PCM (ok) or a
///   one-line UTF-8 message.
enum PiperHelperScript {
    static let requestHeader = 24
    static let responseHeader = 12

    static let source = #"""
import json, os, signal, struct, sys
from collections import OrderedDict

OUT = os.dup(1)
os.dup2(2, 1)
sys.stdout = sys.stderr
signal.signal(signal.SIGINT, signal.SIG_IGN)  # the pool ends us by closing our input
THREADS = max(1, min(64, int(sys.argv[1]))) if len(sys.argv) > 1 else 1
REQUEST = struct.Struct("<IIIid")
RESPONSE = struct.Struct("<III")

def read_exact(count):
    parts, got = [], 0
    while got < count:
        chunk = os.read(0, min(count - got, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)

def answer(status, rate, payload):
    view = memoryview(RESPONSE.pack(status, rate, len(payload)) + payload)
    while view:
        view = view[os.write(OUT, view):]

def one_line(error):
    text = " ".join(str(error).split())
    return (type(error).__name__ + (": " + text if text else ""))[:500].encode("utf-8", "replace")

try:
    import onnxruntime
    from piper import PiperVoice
    from piper.config import PiperConfig, SynthesisConfig
    IMPORT_ERROR = None
except Exception as error:
    IMPORT_ERROR = error

voices = OrderedDict()

def voice(model, config):
    info = os.stat(model)
    key = (model, config, info.st_size, info.st_mtime_ns)
    if key in voices:
        voices.move_to_end(key)
        return voices[key]
    with open(config, "r", encoding="utf-8") as file:
        settings = PiperConfig.from_dict(json.load(file))
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = THREADS
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
    loaded = PiperVoice(session=session, config=settings)
    voices[key] = loaded
    while len(voices) > 4:
        voices.popitem(last=False)
    return loaded

while True:
    header = read_exact(REQUEST.size)
    if header is None:
        break
    model_bytes, config_bytes, text_bytes, speaker, length_scale = REQUEST.unpack(header)
    if model_bytes > 65536 or config_bytes > 65536 or text_bytes > (1 << 24):
        sys.exit(2)
    body = read_exact(model_bytes + config_bytes + text_bytes)
    if body is None:
        break
    model = os.fsdecode(body[:model_bytes])
    config = os.fsdecode(body[model_bytes:model_bytes + config_bytes])
    text = body[model_bytes + config_bytes:].decode("utf-8", "replace")
    if IMPORT_ERROR is not None:
        answer(3, 0, ("cannot import piper with " + sys.executable + ": ").encode() + one_line(IMPORT_ERROR))
        continue
    try:
        loaded = voice(model, config)
    except Exception as error:
        answer(1, 0, one_line(error))
        continue
    try:
        settings = SynthesisConfig(speaker_id=None if speaker < 0 else speaker, length_scale=length_scale)
        pcm = b"".join(chunk.audio_int16_array.astype("<i2", copy=False).tobytes()
                       for chunk in loaded.synthesize(text, syn_config=settings))
    except Exception as error:
        answer(2, 0, one_line(error))
        continue
    answer(0, loaded.config.sample_rate, pcm)
"""#
}

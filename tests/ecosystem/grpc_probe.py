#!/usr/bin/python3
"""What grpcurl and grpc_health_probe do, done with Debian's python3-grpcio
(Debian 12 packages neither tool), and with no rpclab .proto file: the
server itself must say what it serves.

  grpc_probe.py ADDRESS list               the services, one a line (grpcurl list)
  grpc_probe.py ADDRESS describe SERVICE   its methods, "Name(Request) returns (Reply)"
  grpc_probe.py ADDRESS call METHOD JSON   one unary call built from reflection alone,
                                           the reply as JSON (grpcurl -d JSON ADDRESS METHOD)
  grpc_probe.py ADDRESS health [SERVICE]   SERVING, NOT_SERVING, ... (grpc_health_probe)

The reflection and health protocols' own .proto files come from Debian's
grpc-proto package and are compiled here with protoc. Exit 0 on success,
1 when the server answers with an error status (printed), 2 on bad usage.
"""
import importlib.util
import os
import subprocess
import sys
import tempfile

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

GRPC_PROTO = "/usr/share/grpc-proto"
REFLECTION = "grpc/reflection/v1alpha/reflection.proto"  # what gRPC 1.51 C++ serves
HEALTH = "grpc/health/v1/health.proto"


def compiled(proto, workdir):
    """The module protoc makes of `proto`, loaded by path: its package name,
    grpc, would otherwise clash with grpcio's."""
    subprocess.run(["protoc", "-I" + GRPC_PROTO, "--python_out=" + workdir, proto], check=True)
    path = os.path.join(workdir, proto.replace(".proto", "_pb2.py"))
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reflect(channel, pb, **request):
    info = channel.stream_stream(
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
        request_serializer=pb.ServerReflectionRequest.SerializeToString,
        response_deserializer=pb.ServerReflectionResponse.FromString)
    reply = next(info(iter([pb.ServerReflectionRequest(**request)]), timeout=10))
    if reply.HasField("error_response"):
        raise SystemExit("reflection error %d: %s" % (reply.error_response.error_code,
                                                      reply.error_response.error_message))
    return reply


def service_pool(channel, pb, symbol):
    """A descriptor pool holding the file that defines `symbol`, and its imports."""
    reply = reflect(channel, pb, file_containing_symbol=symbol)
    pool = descriptor_pool.DescriptorPool()
    files = [descriptor_pb2.FileDescriptorProto.FromString(raw)
             for raw in reply.file_descriptor_response.file_descriptor_proto]
    added = set()
    while len(added) < len(files):  # imports first
        for f in files:
            if f.name not in added and all(d in added for d in f.dependency if d in {g.name for g in files}):
                pool.Add(f)
                added.add(f.name)
    return pool


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    address, command, args = argv[1], argv[2], argv[3:]
    with tempfile.TemporaryDirectory() as workdir, grpc.insecure_channel(address) as channel:
        grpc.channel_ready_future(channel).result(timeout=10)
        if command == "list":
            pb = compiled(REFLECTION, workdir)
            for s in reflect(channel, pb, list_services="").list_services_response.service:
                print(s.name)
        elif command == "describe" and len(args) == 1:
            pb = compiled(REFLECTION, workdir)
            service = service_pool(channel, pb, args[0]).FindServiceByName(args[0])
            for m in service.methods:
                print("%s(%s) returns (%s)" % (m.name, m.input_type.full_name, m.output_type.full_name))
        elif command == "call" and len(args) == 2:
            pb = compiled(REFLECTION, workdir)
            service_name, method_name = args[0].rsplit("/", 1) if "/" in args[0] else args[0].rsplit(".", 1)
            method = service_pool(channel, pb, service_name).FindServiceByName(service_name) \
                .FindMethodByName(method_name)
            request_type = message_factory.MessageFactory().GetPrototype(method.input_type)
            reply_type = message_factory.MessageFactory().GetPrototype(method.output_type)
            call = channel.unary_unary("/%s/%s" % (service_name, method_name),
                                       request_serializer=request_type.SerializeToString,
                                       response_deserializer=reply_type.FromString)
            reply = call(json_format.Parse(args[1], request_type()), timeout=10)
            print(json_format.MessageToJson(reply, indent=None))
        elif command == "health" and len(args) <= 1:
            pb = compiled(HEALTH, workdir)
            check = channel.unary_unary("/grpc.health.v1.Health/Check",
                                        request_serializer=pb.HealthCheckRequest.SerializeToString,
                                        response_deserializer=pb.HealthCheckResponse.FromString)
            reply = check(pb.HealthCheckRequest(service=args[0] if args else ""), timeout=10)
            print(pb.HealthCheckResponse.ServingStatus.Name(reply.status))
        else:
            print(__doc__, file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except grpc.RpcError as e:
        print("%s: %s" % (e.code().name, e.details()), file=sys.stderr)
        sys.exit(1)

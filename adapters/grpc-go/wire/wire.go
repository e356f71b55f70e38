// Package wire is the part of idl/rpclab.proto this adapter carries
// (Empty, NextRequest, NextReply, EchoMessage and the service's name),
// encoded by hand with protowire and handed to gRPC-Go as its codec, so
// the build needs neither protoc nor protoc-gen-go. The bytes on the wire
// are protobuf's: rpclab's own gRPC row (C++) and this one can call each
// other. Nothing here is rpclab's code.
package wire

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Service is the proto's package and service: /rpclab.wire.Rpclab/Next.
const Service = "rpclab.wire.Rpclab"

// Empty is rpclab.wire.Empty.
type Empty struct{}

// NextRequest is rpclab.wire.NextRequest.
type NextRequest struct{ ClientID, Seq uint32 }

// NextReply is rpclab.wire.NextReply (Status: 0 in order, 1 Levy's mismatch).
type NextReply struct{ Status, ExpectedSeq, TimesExecuted uint32 }

// EchoMessage is rpclab.wire.EchoMessage.
type EchoMessage struct{ Payload []byte }

// Codec encodes the four messages above as protobuf does. Its name is
// "proto", so the content-type is gRPC's usual application/grpc.
type Codec struct{}

// Name is the content subtype gRPC sends.
func (Codec) Name() string { return "proto" }

func varint(b []byte, field protowire.Number, v uint32) []byte {
	if v == 0 { // proto3: a zero scalar is not sent
		return b
	}
	b = protowire.AppendTag(b, field, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

// Marshal encodes one of this package's messages.
func (Codec) Marshal(v interface{}) ([]byte, error) {
	switch m := v.(type) {
	case *Empty:
		return nil, nil
	case *NextRequest:
		return varint(varint(nil, 1, m.ClientID), 2, m.Seq), nil
	case *NextReply:
		return varint(varint(varint(nil, 1, m.Status), 2, m.ExpectedSeq), 3, m.TimesExecuted), nil
	case *EchoMessage:
		if len(m.Payload) == 0 {
			return nil, nil
		}
		b := protowire.AppendTag(make([]byte, 0, len(m.Payload)+8), 1, protowire.BytesType)
		return protowire.AppendBytes(b, m.Payload), nil
	}
	return nil, fmt.Errorf("wire: cannot encode %T", v)
}

// Unmarshal decodes one of this package's messages; unknown fields are
// skipped, as protobuf does, and bytes that are not protobuf are an error.
func (Codec) Unmarshal(data []byte, v interface{}) error {
	set := func(field protowire.Number, x uint64) {}
	var payload *[]byte
	switch m := v.(type) {
	case *Empty:
	case *NextRequest:
		set = func(f protowire.Number, x uint64) {
			switch f {
			case 1:
				m.ClientID = uint32(x)
			case 2:
				m.Seq = uint32(x)
			}
		}
	case *NextReply:
		set = func(f protowire.Number, x uint64) {
			switch f {
			case 1:
				m.Status = uint32(x)
			case 2:
				m.ExpectedSeq = uint32(x)
			case 3:
				m.TimesExecuted = uint32(x)
			}
		}
	case *EchoMessage:
		payload = &m.Payload
	default:
		return fmt.Errorf("wire: cannot decode %T", v)
	}
	for len(data) > 0 {
		field, kind, n := protowire.ConsumeTag(data)
		if n < 0 {
			return protowire.ParseError(n)
		}
		data = data[n:]
		switch {
		case kind == protowire.VarintType:
			x, n := protowire.ConsumeVarint(data)
			if n < 0 {
				return protowire.ParseError(n)
			}
			set(field, x)
			data = data[n:]
		case kind == protowire.BytesType && field == 1 && payload != nil:
			b, n := protowire.ConsumeBytes(data)
			if n < 0 {
				return protowire.ParseError(n)
			}
			*payload = append([]byte(nil), b...)
			data = data[n:]
		default:
			n := protowire.ConsumeFieldValue(field, kind, data)
			if n < 0 {
				return protowire.ParseError(n)
			}
			data = data[n:]
		}
	}
	return nil
}

//! The part of idl/rpclab.proto this adapter carries (Empty, NextRequest,
//! NextReply, EchoMessage and the service rpclab.wire.Rpclab), written by
//! hand with prost's derive and tonic's server pieces, as tonic-build
//! would generate them, so the build needs neither protoc nor tonic-build.
//! The bytes on the wire are protobuf's over gRPC: rpclab's own gRPC row
//! (C++), the gRPC-Go adapter and this one can call each other. Nothing
//! here is rpclab's code.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tonic::codegen::{http, Body, BoxFuture, Service, StdError};
use tonic::server::{Grpc, NamedService, UnaryService};
use tonic::{Request, Response, Status};
use tonic_prost::ProstCodec;

/// The proto's package and service: /rpclab.wire.Rpclab/Next.
pub const SERVICE: &str = "rpclab.wire.Rpclab";

/// The largest message: the contract's largest ECHO payload and its framing
/// (tonic's default limit is 4 MiB).
pub const MAX_MESSAGE: usize = (16 << 20) + 1024;

/// rpclab.wire.Empty.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Empty {}

/// rpclab.wire.NextRequest.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NextRequest {
    #[prost(uint32, tag = "1")]
    pub client_id: u32,
    #[prost(uint32, tag = "2")]
    pub seq: u32,
}

/// rpclab.wire.NextReply (status: 0 in order, 1 Levy's mismatch; an enum
/// in the proto, a varint on the wire either way).
#[derive(Clone, PartialEq, prost::Message)]
pub struct NextReply {
    #[prost(uint32, tag = "1")]
    pub status: u32,
    #[prost(uint32, tag = "2")]
    pub expected_seq: u32,
    #[prost(uint32, tag = "3")]
    pub times_executed: u32,
}

/// rpclab.wire.EchoMessage.
#[derive(Clone, PartialEq, prost::Message)]
pub struct EchoMessage {
    #[prost(bytes = "vec", tag = "1")]
    pub payload: Vec<u8>,
}

/// What the server does for each method; `Next` carries the request's
/// metadata and peer to the journal line.
pub trait Rpclab: Send + Sync + 'static {
    fn null(&self);
    fn next(&self, request: &Request<NextRequest>) -> NextReply;
    fn echo(&self);
}

/// rpclab.wire.Rpclab's Null, Next and Echo as a tonic service (what
/// tonic-build generates, for three unary methods).
pub struct RpclabServer<T>(pub Arc<T>);

impl<T> Clone for RpclabServer<T> {
    fn clone(&self) -> Self {
        RpclabServer(self.0.clone())
    }
}

impl<T> NamedService for RpclabServer<T> {
    const NAME: &'static str = SERVICE;
}

/// One unary method: a function of the service and the request.
struct Method<T, M1, M2>(Arc<T>, fn(&T, Request<M1>) -> M2);

impl<T: Send + Sync + 'static, M1: Send + 'static, M2: Send + 'static> UnaryService<M1> for Method<T, M1, M2> {
    type Response = M2;
    type Future = Pin<Box<dyn Future<Output = Result<Response<M2>, Status>> + Send>>;
    fn call(&mut self, request: Request<M1>) -> Self::Future {
        let reply = (self.1)(&self.0, request);
        Box::pin(async move { Ok(Response::new(reply)) })
    }
}

fn unary<T, M1, M2, B>(method: Method<T, M1, M2>, req: http::Request<B>) -> BoxFuture<http::Response<tonic::body::Body>, Infallible>
where
    T: Send + Sync + 'static,
    M1: prost::Message + Default + Send + 'static,
    M2: prost::Message + Send + 'static,
    B: Body + Send + 'static,
    B::Error: Into<StdError> + Send + 'static,
{
    Box::pin(async move {
        let mut grpc = Grpc::new(ProstCodec::<M2, M1>::default())
            .max_decoding_message_size(MAX_MESSAGE)
            .max_encoding_message_size(MAX_MESSAGE);
        Ok(grpc.unary(method, req).await)
    })
}

impl<T: Rpclab, B> Service<http::Request<B>> for RpclabServer<T>
where
    B: Body + Send + 'static,
    B::Error: Into<StdError> + Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let s = self.0.clone();
        match req.uri().path() {
            "/rpclab.wire.Rpclab/Null" => unary(Method(s, |s: &T, _: Request<Empty>| { s.null(); Empty {} }), req),
            "/rpclab.wire.Rpclab/Next" => unary(Method(s, |s: &T, r: Request<NextRequest>| s.next(&r)), req),
            "/rpclab.wire.Rpclab/Echo" => unary(
                Method(s, |s: &T, r: Request<EchoMessage>| {
                    s.echo();
                    r.into_inner()
                }),
                req,
            ),
            _ => Box::pin(async move { Ok(Status::unimplemented("rpclab.wire.Rpclab carries Null, Next and Echo here").into_http()) }),
        }
    }
}

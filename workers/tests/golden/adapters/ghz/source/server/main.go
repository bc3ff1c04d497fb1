// A minimal gRPC Greeter server for latlab's ghz adapter golden files: grpc-go's helloworld
// Greeter (its generated code comes from the google.golang.org/grpc/examples module, whose
// helloworld/helloworld/helloworld.proto is the --proto that ghz was given).
//
//	go build -o srv . && ./srv -addr 127.0.0.1:28451
//
// With -fail N, only one call of every N succeeds; the others fail with Unavailable (the
// failure goldens).
package main

import (
	"context"
	"flag"
	"log"
	"net"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	pb "google.golang.org/grpc/examples/helloworld/helloworld"
)

type server struct {
	pb.UnimplementedGreeterServer
	fail  int64
	calls atomic.Int64
}

func (s *server) SayHello(_ context.Context, in *pb.HelloRequest) (*pb.HelloReply, error) {
	if s.fail > 1 && s.calls.Add(1)%s.fail != 0 {
		return nil, status.Error(codes.Unavailable, "flaky: try again")
	}
	return &pb.HelloReply{Message: "Hello " + in.GetName()}, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:28451", "listen address")
	fail := flag.Int64("fail", 1, "one call of this many succeeds")
	flag.Parse()
	lis, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	s := grpc.NewServer()
	pb.RegisterGreeterServer(s, &server{fail: *fail})
	log.Fatal(s.Serve(lis))
}

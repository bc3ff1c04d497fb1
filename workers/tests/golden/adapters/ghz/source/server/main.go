// A minimal gRPC Greeter server for latlab's ghz adapter golden files: grpc-go's helloworld
// Greeter (its generated code comes from the google.golang.org/grpc/examples module, whose
// helloworld/helloworld/helloworld.proto is the --proto that ghz was given).
//
//	go build -o srv . && ./srv -addr 127.0.0.1:28451
package main

import (
	"context"
	"flag"
	"log"
	"net"

	"google.golang.org/grpc"
	pb "google.golang.org/grpc/examples/helloworld/helloworld"
)

type server struct {
	pb.UnimplementedGreeterServer
}

func (s *server) SayHello(_ context.Context, in *pb.HelloRequest) (*pb.HelloReply, error) {
	return &pb.HelloReply{Message: "Hello " + in.GetName()}, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:28451", "listen address")
	flag.Parse()
	lis, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	s := grpc.NewServer()
	pb.RegisterGreeterServer(s, &server{})
	log.Fatal(s.Serve(lis))
}

// A game protocol for the codec tests: nested and repeated messages, a map, an enum, 64-bit integers and bytes.
export const GAME_PROTO = `
syntax = "proto3";
package game;

enum Gait { GAIT_UNSPECIFIED = 0; WALK = 1; RUN = 2; }
message Vec3 { float x = 1; float y = 2; float z = 3; }
message Move {
  uint32 seq = 1;
  int64 sent_at_us = 2;
  Vec3 pos = 3;
  repeated uint32 buttons = 4;
  bytes token = 5;
  Gait gait = 6;
  map<string, int32> stats = 7;
  repeated Vec3 path = 8;
  uint64 big = 9;
  double heading = 10;
  string name = 11;
  bool jumping = 12;
  sint64 delta = 13;
}
message Ack { uint32 seq = 1; int64 server_time_us = 2; }
`;
